#!/bin/sh
# shellcheck shell=dash
# Test-only hook_command of pomodoro-hooks.service (part-main.sh sets it, as an owner sets theirs):
# a child of `pomodoro hooks`, so it runs in that unit's sandbox, as its user. It appends one line
# an event to $STATE_DIRECTORY/events (the unit's StateDirectory=, the one place it may write):
#   event=EVENT phase=PHASE mode=MODE user=USER stdin=BYTES etc=WRITE inet=SOCKET resolve=NAME netlink=SOCKET
# where the last four say what the sandbox let it do: write under /etc (refused: a read-only
# system), open a TCP connection to the web page on 127.0.0.1:8080 (allowed: a hook has the
# network), resolve localhost (/etc/hosts) with AI_ADDRCONFIG, which asks the kernel's addresses
# over netlink, and open a netlink socket (refused: resolving needs none).
# try CMD...: "ok", or the last line of what CMD said when it failed, without spaces.
try() {
  if err=$("$@" 2>&1); then echo ok; else echo "$err" | tail -n 1 | tr ' ' '_'; fi
}
bytes=$(wc -c | tr -d ' ')
etc=$(try sh -c ': >/etc/systest-hook-probe')
# shellcheck disable=SC2016 # perl's variables
inet=$(try perl -MSocket -e 'socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\n";
  connect($s, pack_sockaddr_in(8080, inet_aton("127.0.0.1"))) or die "connect: $!\n"')
# shellcheck disable=SC2016 # perl's variables
resolve=$(try perl -MSocket=getaddrinfo,AI_ADDRCONFIG -e 'my ($e, @a) = getaddrinfo("localhost", "80",
  { flags => AI_ADDRCONFIG }); die "getaddrinfo: $e\n" if $e || !@a')
# AF_NETLINK is 16 on Linux (perl-base's Socket has no name for it).
# shellcheck disable=SC2016 # perl's variables
netlink=$(try perl -MSocket -e 'socket(my $s, 16, SOCK_RAW, 0) or die "socket: $!\n"')
echo "event=$POMODORO_EVENT phase=$POMODORO_PHASE mode=$POMODORO_MODE user=$(id -un) stdin=$bytes etc=$etc inet=$inet resolve=$resolve netlink=$netlink" \
  >>"$STATE_DIRECTORY/events"
