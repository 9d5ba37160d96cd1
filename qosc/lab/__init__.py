"""A real-kernel QoS lab: two network namespaces joined by a veth pair, iperf3 flows
marked with each service's DSCP, and an EF round-trip probe.

Used by tests/test_lab.py (assertions on medians of short runs) and by
benchmarks/dataplane.py (the qosc / FireQOS / HOWTO table and the plot).
Needs root, iproute2 and iperf3; addresses are 198.18.0.0/30 inside the
namespaces the lab creates, with no route out.
"""
