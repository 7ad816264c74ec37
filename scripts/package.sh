#!/usr/bin/env bash
# A Shepherd release for one Hadoop line:
#   target/dist/shepherd-<version>-hadoop-<line>-linux-x86_64.tar.gz
# holding the shim jar and libshepherd.so, the `shepherd` CLI (with the
# sidecar), configuration templates, the Prometheus scrape config and alerting
# rules, the Grafana dashboard, a systemd unit for the sidecar and INSTALL.md
# (packaging/INSTALL.md says how to install it).
#
#   bash scripts/package.sh                # Hadoop 3.4 line
#   bash scripts/package.sh --hadoop 3.5   # Hadoop 3.5 line (shim built with -Phadoop-3.5)
#   SHEPHERD_SKIP_BUILD=1 ...              # package what target/ and java-shim/target/ hold
source "$(dirname "$0")/lib.sh"
line=3.4
if [ "${1:-}" = "--hadoop" ]; then
  line="${2:?--hadoop needs 3.4 or 3.5}"
fi
case "$line" in
  3.4) profile=() ;;
  3.5) profile=(-Phadoop-3.5) ;;
  *) echo "shepherd: --hadoop must be 3.4 or 3.5, not '$line'" >&2; exit 2 ;;
esac
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
name="shepherd-$version-hadoop-$line-linux-x86_64"
if [ -z "${SHEPHERD_SKIP_BUILD:-}" ]; then
  check_prerequisites
  build_engine
  echo "==> building the Java shim for Hadoop $line"
  "${MVN[@]}" "${profile[@]}" -f java-shim/pom.xml package -DskipTests
fi
jar=$(ls java-shim/target/shepherd-yarn-shim-*.jar | grep -v -- '-sources\|-tests' | head -1)
stage="target/dist/$name"
rm -rf "$stage" "target/dist/$name.tar.gz"
mkdir -p "$stage"/{lib,bin,conf,monitoring/prometheus,monitoring/grafana,systemd}
cp "$jar" "$stage/lib/shepherd-yarn-shim-$version.jar"
cp target/release/libshepherd.so "$stage/lib/"
cp target/release/shepherd "$stage/bin/"
# The release profile keeps debug info for profiling; a release does not
# need it (a tenth of the size).
if command -v strip >/dev/null 2>&1; then
  strip --strip-debug "$stage/lib/libshepherd.so" "$stage/bin/shepherd"
fi
cp hadoop-conf/yarn-site-shepherd.xml hadoop-conf/shepherd.toml hadoop-conf/shepherd-sidecar.toml \
  hadoop-conf/shepherd-dress.toml "$stage/conf/"
cp hadoop-conf/prometheus/shepherd-sidecar.yml hadoop-conf/prometheus/shepherd-alerts.yml \
  "$stage/monitoring/prometheus/"
cp hadoop-conf/grafana/shepherd-dashboard.json "$stage/monitoring/grafana/"
cp packaging/shepherd-sidecar.service "$stage/systemd/"
cp packaging/INSTALL.md "$stage/"
printf 'shepherd %s for Hadoop %s (%s)\n' "$version" "$line" \
  "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" > "$stage/VERSION"
tar -czf "target/dist/$name.tar.gz" -C target/dist "$name"
echo "==> target/dist/$name.tar.gz"
tar -tzf "target/dist/$name.tar.gz" | sed 's/^/    /'
