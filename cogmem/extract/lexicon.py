"""Cue lists only the heuristic extractor relies on. Plain data, kept apart from the rules.

The shared lists (stopwords, sentiment words) are in :mod:`cogmem.text`.
"""

from __future__ import annotations

from cogmem.text.lexicon import word_set

# Capitalised words that are not names when they open or sit inside a sentence.
NOT_NAMES = word_set(
    """
    I I'm I've I'll I'd Hey Hi Hello Thanks Thank Yes Yeah Yep Nope No Oh Wow Cool Great
    Sure Awesome Nice Good Well So And But Or Also Absolutely Definitely Totally Really Haha
    Lol Congrats Congratulations Sounds That's It's What's Let's Here's There's Glad Sorry
    Aww Ah Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March
    April May June July August September October November December Christmas Easter
    Thanksgiving Halloween Mom Dad Mum God OK Okay Bye Cheers Love Happy Agreed Exactly
    Indeed Maybe Nah Wish Hope Take Keep Look See Check Can Could Would Should Will Did Do
    Does Have Has Had Is Are Was Were The A An This That These Those My Your Our Their His
    Her Its We You They He She When Where Why How Who Which If Then Just Not Anyway Btw BTW
    Omg OMG Gosh Whoa Hmm Um Uh Speaking Talking Honestly Seriously Actually Anyways Besides
    Still Yet Once Now Today Tomorrow Yesterday Tonight Last Next Every Sometimes Lately
    Recently Right Alright Family Friends Kids Life Everyone Everybody Someone Somebody
    Nobody Everything Something Nothing Anything People
    """
)

PLACES = word_set(
    """
    Afghanistan Albania Algeria Andorra Angola Argentina Armenia Australia Austria
    Azerbaijan Bahamas Bahrain Bangladesh Barbados Belarus Belgium Belize Benin Bhutan
    Bolivia Bosnia Botswana Brazil Brunei Bulgaria Burundi Cambodia Cameroon Canada
    Chile China Colombia Congo Croatia Cuba Cyprus Czechia Denmark Djibouti Dominica Ecuador
    Egypt Eritrea Estonia Eswatini Ethiopia Fiji Finland France Gabon Gambia Germany
    Ghana Greece Grenada Guatemala Guinea Guyana Haiti Honduras Hungary Iceland
    Indonesia Iran Iraq Ireland Italy Jamaica Japan Kazakhstan Kiribati
    Korea Kosovo Kuwait Kyrgyzstan Laos Latvia Lebanon Lesotho Liberia Libya Liechtenstein
    Lithuania Luxembourg Madagascar Malawi Malaysia Maldives Mali Malta Mauritania Mauritius
    Mexico Micronesia Moldova Monaco Mongolia Montenegro Morocco Mozambique Myanmar Namibia
    Nauru Nepal Netherlands Holland Nicaragua Niger Nigeria Norway Oman Pakistan Palau
    Palestine Panama Paraguay Peru Philippines Poland Portugal Qatar Romania Russia Rwanda
    Samoa Senegal Serbia Seychelles Singapore Slovakia Slovenia Somalia Spain Sudan Suriname
    Sweden Switzerland Syria Taiwan Tajikistan Tanzania Thailand Togo Tonga Tunisia Turkey
    Turkmenistan Tuvalu Uganda Ukraine Uruguay Uzbekistan Vanuatu Vatican Venezuela Vietnam
    Yemen Zambia Zimbabwe England Scotland Wales Britain UK USA America Greenland
    Africa Asia Europe Antarctica Oceania Alabama Alaska Arizona Arkansas California
    Colorado Connecticut Delaware Florida Hawaii Idaho Illinois Indiana Iowa Kansas Kentucky
    Louisiana Maine Maryland Massachusetts Michigan Minnesota Mississippi Missouri
    Nebraska Nevada Ohio Oklahoma Oregon Pennsylvania Tennessee Texas Utah Vermont
    Wisconsin Wyoming
    """
)
"""Countries, continents and US states (less the ones that are common first names, such
as Georgia or Jordan): a capitalised word after "visited" or "with" that names one of
these is a place, not a person ("I visited Italy"), unless it is a speaker's name."""

RELATIONS = word_set(
    """
    mom mother mum dad father parents sister sisters brother brothers sibling siblings
    husband wife partner boyfriend girlfriend fiance fiancee son sons daughter daughters kid
    kids child children baby grandma grandmother grandpa grandfather grandparents aunt uncle
    cousin cousins nephew niece friend friends bestie bff boss coworker coworkers colleague
    colleagues manager mentor mentors neighbor neighbour roommate teacher coach family team
    teammates dog dogs cat cats pet pets puppy kitten
    """
)

LIKE_VERBS = (
    "love",
    "loves",
    "loved",
    "like",
    "likes",
    "enjoy",
    "enjoys",
    "adore",
    "adores",
    "am into",
    "'m into",
    "am passionate about",
    "'m passionate about",
    "am a fan of",
    "'m a fan of",
    "prefer",
    "am obsessed with",
    "'m obsessed with",
)
DISLIKE_VERBS = (
    "hate",
    "hates",
    "dislike",
    "dislikes",
    "can't stand",
    "cannot stand",
    "am not a fan of",
    "'m not a fan of",
    "don't like",
    "do not like",
    "detest",
)
USE_VERBS = (
    "use",
    "uses",
    "play",
    "plays",
    "drive",
    "drives",
    "own",
    "owns",
    "work with",
    "code in",
    "write in",
    "rely on",
    "practice",
    "practise",
)

PAST_IRREGULAR = word_set(
    """
    went got took made saw met ran did had bought found began became brought built came
    caught chose drew drove ate fell felt fought flew forgot gave grew heard held hid hit
    kept knew led left lent lost meant paid put quit read rode rang rose said sold sent set
    shook shot showed sang sank sat slept spoke spent stood stole swam taught told thought
    threw understood woke wore won wrote joined started finished visited attended adopted
    moved signed tried decided painted played watched visited created organized organised
    volunteered graduated travelled traveled celebrated hosted launched released published
    received learned learnt completed entered opened closed baked cooked hiked camped danced
    performed presented participated competed donated helped raised trained
    """
)

# Words that end a noun phrase: auxiliaries and common verbs (any form).
VERBISH = word_set(
    """
    is are was were be been being am has have had do does did can could will would shall
    should must might may looks look looked seems seem seemed feels feel felt gets get got
    makes make made goes go went going take takes took taking want wants wanted need needs
    needed love loves loved like likes liked see sees saw seen know knows knew think thinks
    thought try tries tried help helps helped give gives gave keep keeps kept let lets come
    comes came find finds found tell tells told say says said show shows showed play plays
    played work works worked bring brings brought start starts started learn learns learned
    hope hopes hoped means meant sounds sound sounded turned turns became become becomes
    helped made reminds reminded happened happens enjoy enjoyed enjoys using used use uses
    """
)

# Activities people report doing; a sentence that names one involves that concept.
ACTIVITIES = word_set(
    """
    hiking camping swimming running jogging painting drawing cooking baking fishing skiing
    snowboarding surfing climbing cycling biking dancing singing reading writing gaming
    knitting sewing gardening yoga meditation pottery photography traveling travelling
    volunteering skating skateboarding boxing rowing sailing kayaking canoeing golfing
    tennis soccer football basketball baseball volleyball chess coding programming studying
    shopping horseback riding surfing diving snorkeling marathon triathlon
    """
)

# Evaluative adjectives about people beyond the shared sentiment list (cogmem.text): they make
# "I think she is reliable" an opinion with a sign, so a later change of view supersedes it.
OPINION_POSITIVE = word_set(
    """
    reliable dependable trustworthy clever funny friendly charming punctual capable
    competent responsible loyal efficient productive hilarious gentle polite considerate
    diligent witty generous kind thoughtful helpful honest patient
    """
)
OPINION_NEGATIVE = word_set(
    """
    flaky untrustworthy clumsy incompetent disorganised disorganized pushy bossy moody dull
    unpleasant unfriendly impatient unpunctual rude arrogant selfish lazy stingy dishonest
    impossible unbearable insufferable
    """
)

# Cues that a sentence is the speaker's opinion ("I find X …", "honestly …", "to be honest").
OPINION_CUES = (
    r"\bi\s+(?:really\s+|honestly\s+|actually\s+|still\s+|now\s+)?(?:think|believe|feel like|"
    r"feel that|guess|reckon|suppose|doubt|admire|respect|find|found|consider|considered)\b",
    r"\bin my (?:opinion|view|eyes)\b",
    r"\bproud of (?:you|him|her|them)\b",
    r"\bif you ask me\b",
    r"\bpersonally\b",
    r"\bhonestly\b",
    r"\bfrankly\b",
    r"\bto be (?:honest|fair)\b",
    r"\bi (?:have to|must|gotta) (?:admit|say)\b",
    r"\bi was wrong about\b",
)

# Words that intensify an evaluation: "X is so …", "she is really …".
INTENSIFIERS = word_set(
    """
    so such really quite rather pretty very truly incredibly super too actually extremely
    genuinely totally absolutely always
    """
)

# Third-person pronouns that refer back to the person last named.
PERSON_PRONOUNS = word_set("he she him her they them he's she's they're hes shes")
