"""Space bundles, publishing to the Hugging Face Hub, and connecting to a running Space."""
