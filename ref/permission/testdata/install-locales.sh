#!/bin/sh
# Builds the glibc locales PERM-50 and PERM-51 are about, for the locale
# oracle of ref/permission (TestLocaleOracle, TestLocaleTables), which runs
# real bash in each. With no argument the locales go into the system's
# locale archive (root; .ci/run calls it so); with a directory they are
# built there instead, for LOCPATH=DIR (no root needed).
#
# Each line: locale source (/usr/share/i18n/locales), charmap
# (/usr/share/i18n/charmaps), name. localedef exits 1 for warnings, such as
# SHIFT_JIS's "not ASCII compatible" (it maps 0x5C to YEN SIGN), and still
# writes the locale; -c makes it do so, and only a status above 1 is an
# error.
set -eu
dir=${1:-}
if ! command -v localedef >/dev/null 2>&1 || [ ! -d /usr/share/i18n/charmaps ]; then
	if command -v apt-get >/dev/null 2>&1; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends locales
	else
		echo "install-locales: localedef and /usr/share/i18n are missing, and there is no apt-get" >&2
		exit 1
	fi
fi
[ -z "$dir" ] || mkdir -p "$dir"
while read -r source charmap name; do
	out=$name
	[ -z "$dir" ] || out=$dir/$name
	status=0
	localedef -c --no-warnings=ascii -i "$source" -f "$charmap" "$out" >/dev/null 2>&1 || status=$?
	if [ "$status" -gt 1 ]; then
		echo "install-locales: localedef -i $source -f $charmap $name failed ($status)" >&2
		exit 1
	fi
done <<'LOCALES'
zh_TW BIG5 zh_TW.BIG5
zh_HK BIG5-HKSCS zh_HK.BIG5-HKSCS
zh_CN GBK zh_CN.GBK
zh_CN GB18030 zh_CN.GB18030
ja_JP SHIFT_JIS ja_JP.SJIS
ja_JP WINDOWS-31J ja_JP.CP932
ko_KR JOHAB ko_KR.JOHAB
zh_TW EUC-TW zh_TW.EUC-TW
en_US ISO-8859-1 en_US.ISO-8859-1
LOCALES
