"""Words too common to tell texts apart: left out of search terms, noun phrases and
overlap measures."""

from __future__ import annotations

from cogmem.text.lexicon import word_set

STOPWORDS = word_set(
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
