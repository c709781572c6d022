"""Simulator adapters: the adapter protocol, the registry, one module per simulator."""
