# mininet/mininet mininet/link.py TCIntf.bwCmds: the commands TCLink(bw=10, use_tbf=True) runs (latency = 15*8/bw ms)
tc qdisc add dev eth0 root handle 5: tbf rate 10.000000Mbit burst 15000 latency 12.000000ms
