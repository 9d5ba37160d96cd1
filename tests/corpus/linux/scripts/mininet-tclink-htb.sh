# mininet/mininet mininet/link.py TCIntf.bwCmds: the commands TCLink(bw=10) runs on its interface (default HTB shaping)
tc qdisc add dev eth0 root handle 5:0 htb default 1
tc class add dev eth0 parent 5:0 classid 5:1 htb rate 10.000000Mbit burst 15k
