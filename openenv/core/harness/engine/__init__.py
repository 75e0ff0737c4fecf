"""A small OpenAI-compatible engine in vLLM's response format, to train and test against here.

``Engine()`` samples from a tiny ``transformers`` model built from a config (random weights,
tokenizer trained on the spot); ``Engine(script=ScriptedPolicy(...))`` is the scripted TEST
engine, replaying fixed replies whose tokens and logprobs still come from that model.
"""

from openenv.core.harness.engine.app import create_engine_app
from openenv.core.harness.engine.core import ChatRequest, Engine, EngineError, Generation
from openenv.core.harness.engine.script import ScriptedCall, ScriptedPolicy, ScriptStep

__all__ = [
    "ChatRequest",
    "Engine",
    "EngineError",
    "Generation",
    "ScriptStep",
    "ScriptedCall",
    "ScriptedPolicy",
    "create_engine_app",
]
