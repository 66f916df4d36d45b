"""`acptrace mock`: an ACP Agent on stdio that plays a recording back, with faults on demand.

>>> from acptrace.mock import MockAgent, MockSettings, load_recording, parse_fault
>>> agent = MockAgent(load_recording("run.jsonl"), MockSettings(faults=(parse_fault("no-marker"),)))
>>> agent.serve(sys.stdin.buffer, sys.stdout.buffer)  # the exit status
"""

from acptrace.mock.agent import MockAgent, MockSettings
from acptrace.mock.faults import TURN_FAULTS, Fault, FaultName, Plan, parse_fault, plan, plan_turn
from acptrace.mock.recording import Recording, Step, StepRole, Window, load_recording

__all__ = [
    "TURN_FAULTS",
    "Fault",
    "FaultName",
    "MockAgent",
    "MockSettings",
    "Plan",
    "Recording",
    "Step",
    "StepRole",
    "Window",
    "load_recording",
    "parse_fault",
    "plan",
    "plan_turn",
]
