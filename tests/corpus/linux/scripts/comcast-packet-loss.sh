# tylertreat/comcast throttler/tc_test.go: the commands comcast runs for packet loss 0.2% on tcp port 80 to one target
sudo tc qdisc add dev eth1 handle 10: root htb default 1
sudo tc class add dev eth1 parent 10: classid 10:1 htb rate 20000kbit
sudo tc class add dev eth1 parent 10: classid 10:10 htb rate 1000000kbit
sudo tc qdisc add dev eth1 parent 10:10 handle 100: netem loss 0.20%
sudo iptables -A POSTROUTING -t mangle -j CLASSIFY --set-class 10:10 -p tcp --dport 80 -d 10.10.10.10
