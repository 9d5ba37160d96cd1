# containernetworking/plugins plugins/meta/bandwidth/ifb_creator.go createTBF: the TBF the bandwidth plugin puts (over
# netlink) on a pod's host veth for ingressRate=10Mbit, ingressBurst=10Mbit (1.25 MB), latency 25 ms
# ("tc qdisc add dev link root tbf rate netConf.BandwidthLimits.Rate burst netConf.BandwidthLimits.Burst", the file's
# own comment; the limit is rate x latency + burst, what tc's `latency` computes)
tc qdisc add dev vethpod0 root tbf rate 10000000bit burst 1250000b latency 25ms
