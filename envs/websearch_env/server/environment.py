"""Web search: answer a question by searching, then give the answer.

Each episode asks one question (``websearch_env/data/questions.json``). A step with ``query``
searches and returns the documented observation: ``content`` (the results as numbered text)
and ``web_contents`` (title, content, url per result); reward 0. A step with ``answer`` ends
the episode: reward 1.0 when the answer, normalised (case, accents, punctuation, articles),
equals one of the question's accepted answers, else 0.0 (component ``correct``). After
``max_steps`` steps without an answer the episode ends with 0.0.

Results come from a provider (:mod:`websearch_env.server.providers`): ``offline`` (default;
BM25 over the corpus we ship, so every question can be answered without a network) or
``serper`` (Google through Serper.dev; ``SERPER_API_KEY``). A search that fails (no key,
network, refused key) is an observation whose ``content`` starts with ``[ERROR]`` and whose
``metadata["error"]`` says why; the episode goes on. An action with neither or both of
``query`` and ``answer`` is refused (``InvalidAction``) and changes nothing.

Reset options: ``question_id`` (else the seed picks one), ``top_k`` results per search (1-10,
default 5), ``max_steps`` (1-50, default 10); or ``task_source`` (a task file such as the
shipped ``starter.jsonl``, or a dataset) and ``task_index`` (its row; none: the seed picks one),
whose row names a ``question_id`` of the shipped questions, looked up as ``question_id`` is
(their accepted answers score it; nothing of a row is run).
"""

from __future__ import annotations

import json
import re
import unicodedata
import uuid
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from openenv.core import Environment, Svg
from openenv.core.errors import InvalidAction
from openenv.core.rubrics import FnRubric, WeightedSum
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows
from websearch_env.models import WebContent, WebSearchAction, WebSearchObservation, WebSearchState
from websearch_env.server.providers import ProviderError, SearchProvider, provider_from_env
from websearch_env.server.results import format_results, results_svg

QuestionId = Annotated[
    str | None, Field(default=None, max_length=64, description="Which question (else by seed)")
]
TopK = Annotated[int, Field(ge=1, le=10, description="Results per search")]
MaxSteps = Annotated[int, Field(ge=1, le=50, description="Steps before the episode is cut")]
ARTICLES = re.compile(r"\b(a|an|the)\b")
# A row of a task file: a shipped question, by its id (looked up as ``question_id`` is). Nothing
# of a row is run or scored: the shipped question and its accepted answers are.
TASK_ROWS = TaskRows(
    Path(__file__).resolve().parent.parent,
    TaskColumns(fields={"question_id": ("question_id", "id")}),
)
TaskSource, TaskRow = TASK_ROWS.options()
_ROW_ID: TypeAdapter[str] = TypeAdapter(
    Annotated[str, Field(strict=True, min_length=1, max_length=64)]
)


@lru_cache(maxsize=1)
def questions() -> tuple[dict[str, Any], ...]:
    """The shipped questions: ``id``, ``question``, ``answers`` (accepted spellings)."""
    text = resources.files("websearch_env.data").joinpath("questions.json").read_text("utf-8")
    return tuple(json.loads(text)["questions"])


def row_question(picked: PickedTask) -> dict[str, Any]:
    """The shipped question a row names; a TaskSourceError names the row and what does not
    fit."""
    question_id = picked.valid(_ROW_ID, picked.task["question_id"])
    for question in questions():
        if question["id"] == question_id:
            return question
    ids = ", ".join(q["id"] for q in questions())
    raise picked.error(f"no question {question_id!r}; ids: {ids}")


def normalize(text: str) -> str:
    """Lower case, no accents, no punctuation, no articles, single spaces."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    plain = re.sub(r"[^a-z0-9 ]+", " ", plain)
    return " ".join(ARTICLES.sub(" ", plain).split())


def is_correct(answer: str, accepted: list[str]) -> bool:
    return normalize(answer) in {normalize(a) for a in accepted}


class WebSearchEnvironment(Environment[WebSearchAction, WebSearchObservation, WebSearchState]):
    """See the module docstring."""

    STEP_KIND = "io"  # a Serper search waits on the network
    how_to_play = (
        "Answer the question at the top: type words in query and press Send to search, read "
        "the results, then type your answer in answer. The right answer scores 1."
    )

    def __init__(self, provider: SearchProvider | None = None) -> None:
        super().__init__()
        self._provider = provider or provider_from_env()
        self._question = questions()[0]
        self._queries: list[str] = []
        self._results: list[WebContent] = []
        self._error: str | None = None
        self._answer: str | None = None
        self._correct = 0.0
        self._top_k, self._max_steps = 5, 10
        self._state = WebSearchState()
        self._picked: PickedTask | None = None
        self.rubric = WeightedSum({"correct": FnRubric(self._score, name="correct")}, [1.0])

    def reset(  # type: ignore[override]
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        question_id: QuestionId = None,
        top_k: TopK = 5,
        max_steps: MaxSteps = 10,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> WebSearchObservation:
        picked = TASK_ROWS.pick(
            task_source, task_index, self.rng, "question", question_id=question_id
        )
        self._state = WebSearchState(episode_id=episode_id or str(uuid.uuid4()))
        self._question = row_question(picked) if picked else self._pick(question_id)
        self._picked = picked
        self._queries, self._results, self._error = [], [], None
        self._answer, self._correct = None, 0.0
        self._top_k, self._max_steps = top_k, max_steps
        return self._observe(WebSearchObservation(reward=0.0, metadata={"status": "ready"}))

    def step(self, action: WebSearchAction) -> WebSearchObservation:  # type: ignore[override]
        query, answer = action.query.strip(), action.answer.strip()
        if query and answer:
            raise InvalidAction("send a query (to search) or an answer (to finish), not both")
        if not query and not answer:
            raise InvalidAction("type a query to search, or an answer to finish the episode")
        self._state.step_count += 1
        obs = self._submit(answer) if answer else self._search(query, action.temp_api_key)
        if not obs.done and self._state.step_count >= self._max_steps:
            obs.done = True
            obs.metadata["status"] = f"out of steps ({self._max_steps}) without an answer"
        return self._observe(obs)

    @property
    def state(self) -> WebSearchState:  # type: ignore[override]
        return WebSearchState(
            episode_id=self._state.episode_id,
            step_count=self._state.step_count,
            question_id=self._question["id"],
            question=self._question["question"],
            provider=self._provider.name,
            queries=list(self._queries),
            answer=self._answer,
            correct=None if self._answer is None else self._correct >= 1.0,
            task_source=self._picked.source if self._picked else None,
            task_index=self._picked.index if self._picked else None,
        )

    def render(self) -> Svg:
        query = self._queries[-1] if self._queries else ""
        return Svg(
            results_svg(
                self._question["question"],
                query,
                self._results,
                self._provider.name,
                self._error,
                self._footer(),
            )
        )

    # -- helpers ----------------------------------------------------------------------------

    def _search(self, query: str, api_key: str | None) -> WebSearchObservation:
        self._queries.append(query)
        try:
            self._results = self._provider.search(query, self._top_k, api_key)
            self._error = None
        except ProviderError as exc:
            self._results, self._error = [], str(exc)
            return WebSearchObservation(
                content=f"[ERROR] Search failed: {exc}",
                query=query,
                metadata={"query": query, "error": str(exc)},
            )
        if not self._results:
            return WebSearchObservation(
                content=f"[ERROR] No search results found for query: {query}",
                query=query,
                metadata={"query": query, "error": "No search results found"},
            )
        return WebSearchObservation(
            content=format_results(query, self._results),
            web_contents=list(self._results),
            query=query,
            metadata={"query": query},
        )

    def _submit(self, answer: str) -> WebSearchObservation:
        self._answer = answer
        self._correct = float(is_correct(answer, self._question["answers"]))
        verdict = "correct" if self._correct else "not an accepted answer"
        obs = WebSearchObservation(content=f"Answer submitted: {answer} ({verdict})", done=True)
        obs.metadata["accepted_answers"] = list(self._question["answers"])
        return obs

    def _pick(self, question_id: str | None) -> dict[str, Any]:
        pool = questions()
        if question_id is None:
            return pool[self.rng.randrange(len(pool))]
        for question in pool:
            if question["id"] == question_id:
                return question
        raise InvalidAction(f"no question {question_id!r}; ids: {', '.join(q['id'] for q in pool)}")

    def _score(self, action: Any, observation: Any) -> float:
        return self._correct

    def _footer(self) -> tuple[str, str]:
        if self._answer is None:
            return "No answer yet: type it in answer when you know it.", "#5f6368"
        if self._correct:
            return f"✓ Answer: {self._answer} — correct", "#188038"
        expected = self._question["answers"][0]
        return f"✗ Answer: {self._answer} — expected {expected}", "#c5221f"

    def _observe(self, obs: WebSearchObservation) -> WebSearchObservation:
        obs.question = self._question["question"]
        obs.provider = self._provider.name
        obs.searches = len(self._queries)
        obs.metadata["question"] = self._question["question"]
        obs.metadata["question_id"] = self._question["id"]
        return obs
