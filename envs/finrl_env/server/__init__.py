"""Server side of the FinRL environment."""
