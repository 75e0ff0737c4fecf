"""FinQA's shipped data: ``synthetic.json``, three fictional companies' 10-K-style tables and
nine questions over them, written for this project (no real company's figures)."""
