"""The fast shell: the stage and a Reset button inlined at the top of the page, playable before
Gradio's JavaScript bundle arrives (``markup``), and its JSON routes (``routes``).
"""
