#!/bin/sh
# shellcheck shell=dash
# Test-only ExecStartPost= of pomodoro.service (a runtime drop-in made by part-main.sh): runs in
# the live service's sandbox (its user, namespaces, device policy, system call filter and
# address families) and tries what the sandbox must refuse. One line each on stdout (the
# service's journal): `sandbox-probe: NAME denied: ERROR` or `sandbox-probe: NAME ALLOWED`.
try() {
  name=$1
  shift
  if err=$("$@" 2>&1); then
    echo "sandbox-probe: $name ALLOWED"
  else
    echo "sandbox-probe: $name denied: $(echo "$err" | tail -n 1)"
  fi
}
try dev-mem sh -c 'head -c 1 /dev/mem >/dev/null'
try etc-write sh -c ': >/etc/systest-probe'
# socket() alone (perl-base's Socket): a connect() that the sandbox let through would hang
# on IPAddressDeny=any instead of answering.
# shellcheck disable=SC2016 # perl's variables
try inet-socket perl -MSocket -e 'socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\n"'
exit 0
