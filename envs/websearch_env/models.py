"""Wire types of the web search environment, shared by its client and its server.

The documented env's action (``query``, ``temp_api_key``) and observation (``content``: the
results formatted as text; ``web_contents``: one :class:`WebContent` per result), plus what
makes an episode here: ``answer`` on the action, ``question`` and the search count on the
observation.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from openenv.core import Action, Observation, State


class WebContent(BaseModel):
    """One search result: its title, its text (a snippet or the page's passage) and its URL."""

    title: str = Field(default="", description="The page's title")
    content: str = Field(default="", description="The result's text")
    url: str = Field(default="", description="The page's address")


class WebSearchAction(Action):
    """Search (``query``) or answer the episode's question (``answer``): one of the two."""

    query: str = Field(default="", max_length=400, description="What to search for")
    answer: str = Field(default="", max_length=300, description="Your final answer (ends it)")
    temp_api_key: str | None = Field(
        default=None, max_length=200, description="A Serper.dev key for this search only"
    )


class WebSearchObservation(Observation):
    """The formatted results (``content``), each result (``web_contents``) and the question."""

    content: str = Field(default="", description="The results as text, numbered [1], [2], ...")
    web_contents: list[WebContent] = Field(default_factory=list, description="The results")
    question: str = Field(default="", description="The question to answer")
    query: str = Field(default="", description="The query these results are for")
    provider: str = Field(default="", description="offline (shipped corpus) or serper")
    searches: int = Field(default=0, description="Searches made so far")


class WebSearchState(State):
    """The question, the provider, the searches made and the answer given."""

    question_id: str = ""
    question: str = ""
    provider: str = ""
    queries: list[str] = Field(default_factory=list)
    answer: str | None = None
    correct: bool | None = None
    task_source: str | None = None  # the task file or dataset the question is a row of
    task_index: int | None = None  # its row there


__all__ = ["WebContent", "WebSearchAction", "WebSearchObservation", "WebSearchState"]
