"""gunicorn entry point: ``gunicorn service.wsgi:app``.

Its requests hear of other processes' appends (``replays.notices``); each worker process subscribes
on its first request."""
from service.app import create_app
from service.config import Settings
from service.context import Context

context = Context(Settings.from_env())
context.follow_appends()
app = create_app(context)
