"""Strategic Aspect: cyclists race thirty spaces a cycle, bid for safety and vote one another out."""
from engines.registry import register
from engines.strategic_aspect.engine import ENGINE, ENGINES, StrategicAspect

for _engine in ENGINES:
    register(_engine)

__all__ = ["ENGINE", "ENGINES", "StrategicAspect"]
