# kubernetes/kubernetes pkg/util/bandwidth/linux.go tcShaper: ReconcileInterface then Limit(cidr, upload=5M, download=10M) on cbr0
# (the pod CIDR written as 198.18.1.0/24, from the benchmarking range)
tc qdisc add dev cbr0 root handle 1: htb default 30
tc class add dev cbr0 parent 1: classid 1:1 htb rate 10000kbit
tc filter add dev cbr0 protocol ip parent 1:0 prio 1 u32 match ip dst 198.18.1.0/24 flowid 1:1
tc class add dev cbr0 parent 1: classid 1:2 htb rate 5000kbit
tc filter add dev cbr0 protocol ip parent 1:0 prio 1 u32 match ip src 198.18.1.0/24 flowid 1:2
