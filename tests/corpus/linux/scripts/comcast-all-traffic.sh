# tylertreat/comcast throttler/tc_test.go: the commands comcast runs with no shaping parameters, all traffic classified by iptables/ip6tables
sudo tc qdisc add dev eth0 handle 10: root htb default 1
sudo tc class add dev eth0 parent 10: classid 10:1 htb rate 20000kbit
sudo tc class add dev eth0 parent 10: classid 10:10 htb rate 1000000kbit
sudo tc qdisc add dev eth0 parent 10:10 handle 100: netem
sudo iptables -A POSTROUTING -t mangle -j CLASSIFY --set-class 10:10
sudo ip6tables -A POSTROUTING -t mangle -j CLASSIFY --set-class 10:10
