# lxc/incus internal/server/device/device_utils_network.go networkSetupHostVethLimits: the tc objects Incus builds (over
# netlink) on the host side veth of an instance NIC with limits.ingress=100Mbit and limits.egress=50Mbit, written as tc
# commands: an HTB root (default class 0x10) with one class at the ingress limit and a catch-all u32 filter to flowid 1:1,
# and an ingress qdisc with a catch-all police filter at the egress limit (burst egress/40 bytes, mtu 65535)
tc qdisc add dev vethinst0 root handle 1:0 htb default 10
tc class add dev vethinst0 parent 1:0 classid 1:10 htb rate 100000000bit
tc filter add dev vethinst0 parent 1:0 protocol all u32 match u32 0 0 flowid 1:1
tc qdisc add dev vethinst0 handle ffff:0 ingress
tc filter add dev vethinst0 parent ffff:0 protocol all u32 match u32 0 0 police rate 50000000bit burst 1250000 mtu 65535 drop
