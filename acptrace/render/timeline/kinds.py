"""The kinds of message a timeline entry holds, as `Entry.kind` names them (an enum's `value`
is a property: looked up once here, not for every row)."""

from acptrace.model.domain import MessageKind

REQUEST = MessageKind.REQUEST.value
RESPONSE = MessageKind.RESPONSE.value
NOTIFICATION = MessageKind.NOTIFICATION.value
