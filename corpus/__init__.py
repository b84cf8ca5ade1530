"""Reading the notes: readers for every source format, Markdown parsing, structure-aware chunking and
the paper catalog. Knows Markdown and the notes' conventions; knows nothing of stores, models or Discord."""
