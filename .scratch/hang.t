#!/bin/bash
# tier: vm
echo starting
python3 -c "import socket,time; s=socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0); s.recv(100)"
