# thombashi/tcconfig test/test_tcset_tc-command.py: expected output of `tcset {device} --loss 1% --tc-command` ({device} = eth0)
/usr/sbin/tc qdisc add dev eth0 root handle 1a1a: htb default 1
/usr/sbin/tc class add dev eth0 parent 1a1a: classid 1a1a:1 htb rate 10000000.0kbit
/usr/sbin/tc class add dev eth0 parent 1a1a: classid 1a1a:252 htb rate 10000000.0Kbit ceil 10000000.0Kbit
/usr/sbin/tc qdisc add dev eth0 parent 1a1a:252 handle 21ff: netem loss 1.000000% limit 1000.000000
/usr/sbin/tc filter add dev eth0 protocol ip parent 1a1a: prio 5 u32 match ip dst 0.0.0.0/0 match ip src 0.0.0.0/0 flowid 1a1a:252
