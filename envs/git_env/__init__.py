"""Git: local bare repositories to clone, edit, commit, branch and push, in a sandbox per
session. Client-side exports."""

from git_env.client import GitEnv
from git_env.models import GitAction, GitObservation, GitState

__all__ = ["GitAction", "GitEnv", "GitObservation", "GitState"]
