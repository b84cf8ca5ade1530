"""Finding and answering: embeddings, the Chroma store, incremental indexing, hybrid retrieval,
answers with citations and conference summaries. Returns plain data objects; reads no environment."""
