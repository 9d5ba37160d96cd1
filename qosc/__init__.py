"""qosc: a Diffserv QoS policy compiler for heterogeneous routers."""

__version__ = "0.1.0"
