"""The Harbor server the browser tests open (``uvicorn tests.harbor_web_apps:app``): the shipped
tasks, no model endpoint of its own (runs use a visitor's URL or the scripted TEST engine), the
Task API and run routes beside the /web UI, as ``openenv harbor serve`` builds it on a loopback
bind (visitors may add Hub datasets and name their own model URL)."""

from openenv.core.harness.tasks import load_tasks, shipped_tasks
from openenv.harbor import Endpoints, HarborService
from openenv.harbor.app import create_harbor_app

service = HarborService({"shipped": load_tasks(shipped_tasks())}, Endpoints())
app = create_harbor_app(service, allow_hub_add=True, allow_urls=True)
