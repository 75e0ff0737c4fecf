"""The stage: what a visitor plays on, shared by the fast shell and the Gradio page.

``controller`` drives each browser tab's session (open, reset, act, close), ``tabs`` holds what
the playground remembers per tab, ``html`` draws the stage (view, buttons, sliders, message,
episode panel) as one HTML fragment.
"""
