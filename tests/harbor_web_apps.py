"""The Harbor server the browser tests open (``uvicorn tests.harbor_web_apps:app``): the shipped
tasks, no model endpoint of its own (runs use a visitor's URL or the scripted TEST engine), the
Task API and run routes beside the /web UI, as ``openenv harbor serve`` builds it."""

from openenv.core.harness.tasks import load_tasks, shipped_tasks
from openenv.harbor import Endpoints, HarborService
from openenv.harbor.app import create_harbor_app

service = HarborService({"shipped": load_tasks(shipped_tasks())}, Endpoints())
app = create_harbor_app(service)
