from acptrace.runs import grow_in_python as grow

__all__ = ["grow"]
