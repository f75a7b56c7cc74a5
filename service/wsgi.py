"""gunicorn entry point: ``gunicorn service.wsgi:app``.

Its requests hear of other processes' appends (``replays.notices``); each worker process subscribes
on its first request."""
from service.app import create_app
from runtime.config import Settings
from runtime.context import Context

context = Context(Settings.from_env())
context.follow_appends()
app = create_app(context)
