"""Web search's shipped data: ``corpus.json`` (short encyclopedia-style pages we wrote, in our
own words, about well-known public facts) and ``questions.json`` (questions they answer)."""
