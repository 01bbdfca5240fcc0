#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# A hostile or broken atsd for t_ibacm_hostile.sh: fake_atsd.py SOCKET MODE
# GID LOG. Every request line is appended to LOG. MODE:
#   idle      answers "resolve IP ..." with one record of IP on GID, and
#             closes a connection idle for 1 s (atsd's client_idle_timeout)
#   noaccept  listens with a backlog of 0 and never accepts
#   silent    accepts and reads, never answers
#   garbage   answers "OK 1" and a line that is no record
#   huge      answers 4096 bytes without a newline
#   zerogid   answers a record of IP on GID ::
import os, select, socket, sys, time

path, mode, gid, log = sys.argv[1:5]
try:
    os.unlink(path)
except FileNotFoundError:
    pass
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
if mode == 'noaccept':
    s.listen(0)
    while True:
        time.sleep(3600)
s.listen(16)
conns = {}
while True:
    r, _, _ = select.select([s] + list(conns), [], [], 0.1)
    now = time.time()
    for c in r:
        if c is s:
            c2, _ = s.accept()
            conns[c2] = [b'', now]
            continue
        try:
            d = c.recv(4096)
        except OSError:
            d = b''
        if not d:
            c.close()
            del conns[c]
            continue
        st = conns[c]
        st[0] += d
        st[1] = now
        while b'\n' in st[0]:
            line, st[0] = st[0].split(b'\n', 1)
            w = line.decode(errors='replace').split()
            with open(log, 'a') as f:
                f.write(line.decode(errors='replace') + '\n')
            ip = w[1] if len(w) > 1 else '0.0.0.0'
            if mode == 'silent':
                continue
            if mode == 'garbage':
                out = 'OK 1\nthis is no record\n'
            elif mode == 'huge':
                out = 'X' * 4096
            elif mode == 'zerogid':
                out = 'OK 1\n0x10000ce100415453 :: 0xffff 0 %s\n' % ip
            else:
                out = 'OK 1\n0x10000ce100415453 %s 0xffff 0 %s\n' % (gid, ip)
            try:
                c.sendall(out.encode())
            except OSError:
                pass
    if mode == 'idle':
        for c in list(conns):
            if now - conns[c][1] > 1.0:
                c.close()
                del conns[c]
