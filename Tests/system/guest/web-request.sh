#!/usr/bin/env bash
# web-request.sh METHOD PATH [BODY [COOKIE]]: one HTTP/1.1 request to pomodoro web on
# 127.0.0.1:${WEB_PORT:-8080} with `Host: localhost`, over bash's /dev/tcp (the device root has
# neither curl nor wget, and the test adds nothing to it); a BODY goes as application/json, a
# COOKIE (`name=value`) as the Cookie header. Prints the response as it came, CRs removed: the
# status line, the headers, a blank line, the body. Fails when nothing listens there or no
# answer ends within 10 s.
set -euo pipefail
export LC_ALL=C # ${#body} counts bytes
method=$1 path=$2 body=${3-} cookie=${4-}
crlf=$'\r\n'
request="$method $path HTTP/1.1${crlf}Host: localhost${crlf}Connection: close$crlf"
(($# < 3)) || request+="Content-Type: application/json${crlf}Content-Length: ${#body}$crlf"
[[ -z "$cookie" ]] || request+="Cookie: $cookie$crlf"
exec 3<>"/dev/tcp/127.0.0.1/${WEB_PORT:-8080}"
printf '%s%s%s' "$request" "$crlf" "$body" >&3
timeout 10 cat <&3 | tr -d '\r'
