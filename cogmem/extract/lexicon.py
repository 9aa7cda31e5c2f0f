"""Word lists the heuristic extractor relies on. Plain data, kept apart from the rules."""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = _words(
    """
    a about above after again against all almost also am an and any are aren't as at be
    because been before being below between both but by can can't cannot could couldn't did
    didn't do does doesn't doing don't down during each else even ever every few for from
    further get gets getting got gonna had hadn't has hasn't have haven't having he he'd
    he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if
    in into is isn't it it's its itself just let let's like lot lots maybe me more most much
    must my myself no nor not now of off oh ok okay on once only or other ought our ours
    ourselves out over own pretty quite rather really same she she'd she'll she's should
    shouldn't so some such than that that's the their theirs them themselves then there
    there's these they they'd they'll they're they've this those though through to too
    totally under until up upon us very was wasn't we we'd we'll we're we've well were
    weren't what what's when when's where where's which while who who's whom why why's will
    with won't would wouldn't yeah yes yet you you'd you'll you're you've your yours
    yourself yourselves wow hey hi hello thanks thank awesome cool great nice sure
    definitely absolutely super amazing something anything everything nothing someone anyone
    everyone thing things stuff kind sort way ways time times day days bit lot one ones lol
    haha
    """
)

# Capitalised words that are not names when they open or sit inside a sentence.
NOT_NAMES = _words(
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
    Recently Right Alright
    """
)

RELATIONS = _words(
    """
    mom mother mum dad father parents sister sisters brother brothers sibling siblings
    husband wife partner boyfriend girlfriend fiance fiancee son sons daughter daughters kid
    kids child children baby grandma grandmother grandpa grandfather grandparents aunt uncle
    cousin cousins nephew niece friend friends bestie bff boss coworker coworkers colleague
    colleagues mentor mentors neighbor neighbour roommate teacher coach family team
    teammates dog dogs cat cats pet pets puppy kitten
    """
)

POSITIVE = _words(
    """
    amazing awesome beautiful brave brilliant caring cool courageous creative dedicated
    excellent fantastic fun generous genius gifted good great happy hardworking hard-working
    helpful honest impressive incredible inspiring inspirational kind lovely lucky nice
    passionate patient perfect proud respectful smart strong supportive sweet talented
    thoughtful valuable wonderful wise admirable awesome resilient fearless skilled skillful
    determined motivated motivating insightful exciting cute adorable gorgeous stunning
    """
)

NEGATIVE = _words(
    """
    annoying arrogant awful bad boring careless cruel dishonest dumb irresponsible jealous
    lazy mean messy rude selfish sloppy stubborn stupid terrible toxic unfair unreliable
    unhelpful weak wrong crazy horrible disappointing disappointed frustrating frustrated
    unprofessional useless pathetic hateful boring sad upset angry scary overrated
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

PAST_IRREGULAR = _words(
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
VERBISH = _words(
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
ACTIVITIES = _words(
    """
    hiking camping swimming running jogging painting drawing cooking baking fishing skiing
    snowboarding surfing climbing cycling biking dancing singing reading writing gaming
    knitting sewing gardening yoga meditation pottery photography traveling travelling
    volunteering skating skateboarding boxing rowing sailing kayaking canoeing golfing
    tennis soccer football basketball baseball volleyball chess coding programming studying
    shopping horseback riding surfing diving snorkeling marathon triathlon
    """
)
