"""Model backends behind small protocols (NLIModel, Embedder, Generator) and score caching."""
