#!/usr/bin/env bash
# Shepherd installed as an operator installs it, upgraded and rolled back
# with jobs running (issue #68, item 4):
#
#   1. a Hadoop 3.4.3 binary layout (share/hadoop/{common,hdfs,yarn,mapreduce}
#      [/lib], etc/hadoop) assembled from Maven Central's jars
#      (packaging/installed-test/pom.xml), under target/installed-test/;
#   2. the release tarball (scripts/package.sh) unpacked into it following
#      packaging/INSTALL.md step by step, with yarn-site.xml, mapred-site.xml,
#      shepherd.toml and the sidecar's config written to etc/hadoop;
#   3. the ResourceManager and two NodeManagers started as separate JVMs with
#      Hadoop's own main classes, work-preserving recovery on (file-system RM
#      state store, NM recovery), and the release's `shepherd sidecar` on the
#      RM's REST API; its /metrics must serve shepherd_ series;
#   4. SleepJobs submitted as `yarn jar` does (RunJar on the jobclient tests
#      jar) into two queues; `yarn application -list`, `yarn queue`,
#      `yarn rmadmin -refreshQueues` through their main classes;
#   5. UPGRADE: a second copy of the release unpacked beside the first, the
#      /opt/shepherd link moved, only the RM restarted: the jobs' apps and
#      running containers must survive, the RM must map the new library;
#   6. ROLLBACK: yarn.resourcemanager.scheduler.class back to the
#      CapacityScheduler (capacity-scheduler.xml with the same queues), the
#      RM restarted again: the same must survive;
#   7. every job must SUCCEED. A table says what survived each step.
#
#   bash scripts/installed-test.sh           # 3 jobs of 2 maps (90 s): 3-4.5 min on a loaded 2-core box
#   bash scripts/installed-test.sh --quick   # 2 jobs of 1 map (75 s): ~3 min (scripts/test.sh runs this)
#
# The release: SHEPHERD_RELEASE=path.tar.gz, else with SHEPHERD_SKIP_BUILD=1
# the tarball target/dist already holds (scripts/test.sh has just built it),
# else `bash scripts/package.sh` builds one. SHEPHERD_UPGRADE_RELEASE=path.tar.gz
# names a different build to upgrade to (default: a second copy of the same
# tarball, unpacked as a separate release directory).
# Exits non-zero on any failure; every process it started is stopped on exit.
# Logs and the layout stay in target/installed-test/ until the next run.
source "$(dirname "$0")/lib.sh"

QUICK=0
case "${1:-}" in
  "") ;;
  --quick) QUICK=1 ;;
  *) echo "usage: scripts/installed-test.sh [--quick]" >&2; exit 2 ;;
esac
if [ "$QUICK" = 1 ]; then
  JOBS=("default" "alpha")
  MAPS=1
  MAP_MS=75000
else
  JOBS=("default" "alpha" "default")
  MAPS=2
  MAP_MS=90000
fi
need java "JDK 17"
need mvn "Apache Maven 3.8+"
need curl "the RM's, NMs' and sidecar's REST APIs"
need python3 "configuration files and REST answers"
T0=$(date +%s)
W="$ROOT/target/installed-test"
say() { printf '==> [%3ds] %s\n' "$(( $(date +%s) - T0 ))" "$*"; }
fail() { printf 'installed-test: FAILED: %s\n    logs: %s\n' "$*" "$W/logs" >&2; exit 1; }

# ---------------------------------------------------------------- cleanup
PIDS=()
# Every process descended from this script or PIDS (the NodeManagers'
# container launchers and JVMs run in sessions of their own, but remain
# their descendants; the CLI's JVMs run in subshells).
descendants() {
  ps -eo pid=,ppid= | awk -v roots=" $$ ${PIDS[*]} " '
    { parent[$1] = $2 }
    END { for (p in parent) { q = parent[p]; while (q in parent && q > 1) { if (index(roots, " " q " ")) { print p; break } q = parent[q] } } }'
}
cleanup() {
  local rc=$?
  set +e
  local p kids
  kids=$(descendants)
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for _ in $(seq 1 20); do
    local alive=0
    for p in "${PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.5
  done
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  # What the NodeManagers launched and left (containers), by pid: their
  # descendants listed before the NMs were stopped, and any java or bash
  # whose command line names an NM's directories (orphaned containers).
  for p in $kids; do kill -KILL "$p" 2>/dev/null; done
  for p in $(grep -lsa -- "$W/nm[12]/" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3); do
    case "$(cat "/proc/$p/comm" 2>/dev/null)" in java|bash) kill -KILL "$p" 2>/dev/null ;; esac
  done
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- the release
if [ -n "${SHEPHERD_RELEASE:-}" ]; then
  TARBALL="$SHEPHERD_RELEASE"
elif [ -n "${SHEPHERD_SKIP_BUILD:-}" ] && ls "$ROOT"/target/dist/shepherd-*-hadoop-3.4-linux-x86_64.tar.gz >/dev/null 2>&1; then
  TARBALL=$(ls -t "$ROOT"/target/dist/shepherd-*-hadoop-3.4-linux-x86_64.tar.gz | head -1)
else
  say "building the release (scripts/package.sh)"
  bash "$ROOT/scripts/package.sh" >/dev/null
  TARBALL=$(ls -t "$ROOT"/target/dist/shepherd-*-hadoop-3.4-linux-x86_64.tar.gz | head -1)
fi
[ -s "$TARBALL" ] || fail "no release tarball ($TARBALL)"
UPGRADE_TARBALL="${SHEPHERD_UPGRADE_RELEASE:-$TARBALL}"
say "release $(basename "$TARBALL")"

# ---------------------------------------------------------------- the Hadoop layout
rm -rf "$W"
mkdir -p "$W/logs"
H="$W/hadoop"              # $HADOOP_HOME
CONF="$H/etc/hadoop"       # $HADOOP_CONF_DIR of the RM host and the clients
OPT="$W/opt"               # stands for /opt
say "assembling Hadoop 3.4.3 from Maven Central (packaging/installed-test/pom.xml)"
JARS="$ROOT/packaging/installed-test/target/jars"
if [ ! -f "$JARS/.complete" ] || [ "$ROOT/packaging/installed-test/pom.xml" -nt "$JARS/.complete" ]; then
  rm -rf "$JARS"
  "${MVN[@]}" -f "$ROOT/packaging/installed-test/pom.xml" package >"$W/logs/mvn.log" 2>&1 \
    || { cat "$W/logs/mvn.log" >&2; fail "could not fetch Hadoop's jars"; }
  touch "$JARS/.complete"
fi
mkdir -p "$H"/share/hadoop/{common/lib,hdfs/lib,yarn/lib,mapreduce/lib} "$CONF" "$OPT"
for j in "$JARS"/*.jar; do
  b=$(basename "$j")
  case "$b" in
    hadoop-yarn-*) d=yarn ;;
    hadoop-mapreduce-*) d=mapreduce ;;
    hadoop-hdfs-*) d=hdfs ;;
    hadoop-shaded-*) d=common/lib ;;
    hadoop-*) d=common ;;
    *) d=common/lib ;;
  esac
  ln "$j" "$H/share/hadoop/$d/" 2>/dev/null || cp "$j" "$H/share/hadoop/$d/"
done
# What `hadoop classpath` prints for this layout.
classpath() {
  local s="$H/share/hadoop"
  echo "$1:$s/common/lib/*:$s/common/*:$s/hdfs/*:$s/hdfs/lib/*:$s/mapreduce/*:$s/yarn/lib/*:$s/yarn/*"
}
SLEEP_JAR=$(ls "$H"/share/hadoop/mapreduce/hadoop-mapreduce-client-jobclient-*-tests.jar)
JAVA_HOME="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
export JAVA_HOME

# Hadoop XML configuration files: set NAME=VALUE ..., merge FRAGMENT, get NAME.
cat >"$W/conf.py" <<'PY'
import sys, xml.etree.ElementTree as ET, os
def load(path):
    if os.path.exists(path):
        return ET.parse(path).getroot()
    return ET.Element("configuration")
def save(root, path):
    ET.indent(root, "  ")
    ET.ElementTree(root).write(path, encoding="unicode", xml_declaration=True)
def props(root):
    return {p.findtext("name"): p for p in root.findall("property")}
cmd, path = sys.argv[1], sys.argv[2]
root = load(path)
if cmd == "set":
    have = props(root)
    for kv in sys.argv[3:]:
        k, v = kv.split("=", 1)
        if k in have:
            have[k].find("value").text = v
        else:
            p = ET.SubElement(root, "property")
            ET.SubElement(p, "name").text = k
            ET.SubElement(p, "value").text = v
            have[k] = p
    save(root, path)
elif cmd == "merge":  # the fragment's properties, those the file does not set
    have = props(root)
    for name, p in props(load(sys.argv[3])).items():
        if name not in have:
            q = ET.SubElement(root, "property")
            ET.SubElement(q, "name").text = name
            ET.SubElement(q, "value").text = p.findtext("value")
    save(root, path)
elif cmd == "get":
    p = props(root).get(sys.argv[3])
    print(p.findtext("value") if p is not None else "")
PY
conf() { python3 "$W/conf.py" "$@"; }

# Ports: RM (client, scheduler, tracker, admin, web), per NM (rpc,
# localizer, web, shuffle) and the sidecar, free on this host now.
read -r P_RM P_SCHED P_TRACK P_ADMIN P_WEB P_NM1 P_LOC1 P_NMW1 P_SH1 P_NM2 P_LOC2 P_NMW2 P_SH2 P_SIDECAR < <(python3 - <<'PY'
import socket
socks = [socket.socket() for _ in range(14)]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
)
RM_WEB="http://127.0.0.1:$P_WEB"

# core-site.xml: the local file system is the default FS.
conf set "$CONF/core-site.xml" fs.defaultFS=file:/// hadoop.tmp.dir="$W/tmp"
# yarn-site.xml: the cluster's own settings (before Shepherd is installed).
conf set "$CONF/yarn-site.xml" \
  yarn.resourcemanager.hostname=127.0.0.1 \
  yarn.resourcemanager.address=127.0.0.1:$P_RM \
  yarn.resourcemanager.scheduler.address=127.0.0.1:$P_SCHED \
  yarn.resourcemanager.resource-tracker.address=127.0.0.1:$P_TRACK \
  yarn.resourcemanager.admin.address=127.0.0.1:$P_ADMIN \
  yarn.resourcemanager.webapp.address=127.0.0.1:$P_WEB \
  yarn.resourcemanager.recovery.enabled=true \
  yarn.resourcemanager.store.class=org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore \
  yarn.resourcemanager.fs.state-store.uri="file://$W/rm-state" \
  yarn.resourcemanager.work-preserving-recovery.enabled=true \
  yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms=5000 \
  yarn.resourcemanager.connect.retry-interval.ms=1000 \
  yarn.node-attribute.fs-store.root-dir="file://$W/node-attribute" \
  yarn.node-labels.fs-store.root-dir="file://$W/node-labels" \
  yarn.scheduler.include-port-in-node-name=true \
  yarn.scheduler.minimum-allocation-mb=256 \
  yarn.scheduler.maximum-allocation-mb=4096 \
  yarn.nodemanager.recovery.enabled=true \
  yarn.nodemanager.resource.memory-mb=4096 \
  yarn.nodemanager.resource.cpu-vcores=8 \
  yarn.nodemanager.pmem-check-enabled=false \
  yarn.nodemanager.vmem-check-enabled=false \
  yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage=99 \
  yarn.nodemanager.aux-services=mapreduce_shuffle \
  yarn.nodemanager.aux-services.mapreduce_shuffle.class=org.apache.hadoop.mapred.ShuffleHandler \
  yarn.nodemanager.env-whitelist=JAVA_HOME,HADOOP_COMMON_HOME,HADOOP_HDFS_HOME,HADOOP_CONF_DIR,CLASSPATH_PREPEND_DISTCACHE,HADOOP_YARN_HOME,HADOOP_HOME,PATH,LANG,TZ,HADOOP_MAPRED_HOME
# mapred-site.xml: MapReduce on YARN, small JVMs with JDK 17's --add-opens
# (client-style JIT and serial GC: short task JVMs on a 2-core machine).
JOPTS="$JDK17_OPENS -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
conf set "$CONF/mapred-site.xml" \
  mapreduce.framework.name=yarn \
  yarn.app.mapreduce.am.staging-dir="$W/staging" \
  'mapreduce.application.classpath=$HADOOP_MAPRED_HOME/share/hadoop/mapreduce/*,$HADOOP_MAPRED_HOME/share/hadoop/mapreduce/lib/*' \
  yarn.app.mapreduce.am.resource.mb=512 \
  yarn.app.mapreduce.am.command-opts="-Xmx320m $JOPTS" \
  mapreduce.map.memory.mb=512 mapreduce.map.java.opts="-Xmx256m $JOPTS" \
  mapreduce.reduce.memory.mb=512 mapreduce.reduce.java.opts="-Xmx256m $JOPTS" \
  mapreduce.jobhistory.address=
cat >"$CONF/log4j.properties" <<'EOF'
log4j.rootLogger=INFO,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.target=System.err
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n
EOF
# The CapacityScheduler's queues, for the rollback: the same two leaf queues.
conf set "$CONF/capacity-scheduler.xml" \
  yarn.scheduler.capacity.root.queues=default,alpha \
  yarn.scheduler.capacity.root.default.capacity=50 \
  yarn.scheduler.capacity.root.alpha.capacity=50 \
  yarn.scheduler.capacity.root.default.maximum-capacity=100 \
  yarn.scheduler.capacity.root.alpha.maximum-capacity=100 \
  yarn.scheduler.capacity.maximum-am-resource-percent=0.5

# ---------------------------------------------------------------- INSTALL.md, step by step
# Step 1: unpack under /opt and link.
say "INSTALL.md 1: unpack the release under $OPT, link $OPT/shepherd"
tar -xzf "$TARBALL" -C "$OPT"
REL1=$(ls -d "$OPT"/shepherd-*-hadoop-3.4-linux-x86_64 | head -1)
ln -sfn "$REL1" "$OPT/shepherd"
# Step 2: the jar on the RM's classpath (a version-less link), the library in place.
say "INSTALL.md 2: link the shim jar into share/hadoop/yarn/"
ln -sfn "$(ls "$OPT"/shepherd/lib/shepherd-yarn-shim-*.jar)" "$H/share/hadoop/yarn/shepherd-yarn-shim.jar"
[ -f "$H/share/hadoop/yarn/shepherd-yarn-shim.jar" ] || fail "the jar link does not resolve"
# Step 3: the configs, checked without starting anything.
say "INSTALL.md 3: copy shepherd.toml and shepherd-sidecar.toml to etc/hadoop, check-config"
cp "$OPT/shepherd/conf/shepherd.toml" "$OPT/shepherd/conf/shepherd-sidecar.toml" "$CONF/"
# The operator's edit: a second queue, alpha, beside default (half each).
python3 - "$CONF/shepherd.toml" <<'PY'
import re, sys
p = sys.argv[1]
t = open(p).read()
t, n = re.subn(r'(\[\[queue\]\]\nname = "default"\n(?:.*\n)*?capacity = )1\.0', r'\g<1>0.5', t, count=1)
assert n == 1, "the default queue's capacity line was not found"
t += '\n[[queue]]\nname = "alpha"\ncapacity = 0.5\nmax_capacity = 1.0\n'
open(p, "w").write(t)
PY
"$OPT/shepherd/bin/shepherd" check-config "$CONF/shepherd.toml" >"$W/logs/check-config.log" 2>&1 \
  || { cat "$W/logs/check-config.log" >&2; fail "shepherd check-config"; }
# Step 4: merge the fragment; the three keys that matter set for this host.
say "INSTALL.md 4: merge conf/yarn-site-shepherd.xml into etc/hadoop/yarn-site.xml"
conf set "$CONF/yarn-site.xml" \
  yarn.resourcemanager.scheduler.class=org.shepherd.yarn.ShepherdScheduler \
  yarn.scheduler.shepherd.config-file="$CONF/shepherd.toml" \
  yarn.scheduler.shepherd.native-library="$OPT/shepherd/lib/libshepherd.so" \
  yarn.scheduler.shepherd.utilization=containers
conf merge "$CONF/yarn-site.xml" "$OPT/shepherd/conf/yarn-site-shepherd.xml"

# Each NodeManager "host" gets the cluster's etc/hadoop with its own
# addresses and directories (on separate machines these would be the same
# file; here two NMs share one host).
for i in 1 2; do
  eval "port=\$P_NM$i loc=\$P_LOC$i web=\$P_NMW$i sh=\$P_SH$i"
  d="$W/nm$i"
  mkdir -p "$d/local" "$d/logs" "$d/recovery"
  cp -r "$CONF" "$d/etc-hadoop"
  conf set "$d/etc-hadoop/yarn-site.xml" \
    yarn.nodemanager.hostname=127.0.0.1 \
    yarn.nodemanager.address=127.0.0.1:$port \
    yarn.nodemanager.localizer.address=127.0.0.1:$loc \
    yarn.nodemanager.webapp.address=127.0.0.1:$web \
    yarn.nodemanager.local-dirs="$d/local" \
    yarn.nodemanager.log-dirs="$d/logs" \
    yarn.nodemanager.recovery.dir="$d/recovery"
  # In mapred-site.xml, not yarn-site.xml: mapred-default.xml (which sets
  # 13562) is loaded after yarn-site.xml once MapReduce's classes are up.
  conf set "$d/etc-hadoop/mapred-site.xml" mapreduce.shuffle.port=$sh
done

# ---------------------------------------------------------------- daemons
DAEMON_ENV=(JAVA_HOME="$JAVA_HOME" HADOOP_HOME="$H" HADOOP_COMMON_HOME="$H" HADOOP_HDFS_HOME="$H"
  HADOOP_YARN_HOME="$H" HADOOP_MAPRED_HOME="$H")
# The daemons' JVMs: C1 only and the serial GC, as for the task JVMs (less
# CPU spent compiling and collecting on a shared 2-core machine).
DAEMON_JVM="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC $JDK17_OPENS"
RM_PID=""
RM_RUN=0
start_rm() {
  RM_RUN=$((RM_RUN + 1))
  env "${DAEMON_ENV[@]}" HADOOP_CONF_DIR="$CONF" nice -n 2 java -Xmx512m $DAEMON_JVM \
    -Dhadoop.log.dir="$W/logs" -Dyarn.log.dir="$W/logs" -Dhadoop.home.dir="$H" \
    -cp "$(classpath "$CONF")" org.apache.hadoop.yarn.server.resourcemanager.ResourceManager \
    >"$W/logs/rm-$RM_RUN.log" 2>&1 &
  RM_PID=$!
  PIDS+=("$RM_PID")
}
stop_rm() {
  kill -TERM "$RM_PID"
  for _ in $(seq 1 60); do kill -0 "$RM_PID" 2>/dev/null || return 0; sleep 0.5; done
  kill -KILL "$RM_PID" 2>/dev/null || true
}
start_nm() {
  local d="$W/nm$1"
  env "${DAEMON_ENV[@]}" HADOOP_CONF_DIR="$d/etc-hadoop" nice -n 2 java -Xmx384m $DAEMON_JVM \
    -Dhadoop.log.dir="$d" -Dyarn.log.dir="$d" -Dhadoop.home.dir="$H" \
    -cp "$(classpath "$d/etc-hadoop")" org.apache.hadoop.yarn.server.nodemanager.NodeManager \
    >"$W/logs/nm$1.log" 2>&1 &
  PIDS+=($!)
}
rest() { curl -sf --max-time 5 "$RM_WEB$1"; }
# Waits until the RM is active with both NodeManagers registered.
await_rm() {
  local deadline=$(( $(date +%s) + 120 ))
  until [ "$(rest /ws/v1/cluster/metrics 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["clusterMetrics"]["activeNodes"])' 2>/dev/null)" = 2 ]; do
    kill -0 "$RM_PID" 2>/dev/null || { tail -30 "$W/logs/rm-$RM_RUN.log" >&2; fail "the ResourceManager exited"; }
    [ "$(date +%s)" -lt "$deadline" ] || fail "the RM did not see both NodeManagers within 120 s"
    sleep 1
  done
}
yarn_cli() {  # yarn_cli CLASS ARGS...: the yarn command's main classes
  local cls="$1"; shift
  env "${DAEMON_ENV[@]}" HADOOP_CONF_DIR="$CONF" java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
    $JDK17_OPENS -cp "$(classpath "$CONF")" "$cls" "$@" 2>>"$W/logs/cli.log"
}

say "INSTALL.md 5: start the ResourceManager (ShepherdScheduler) and two NodeManagers"
start_rm
start_nm 1
start_nm 2
await_rm
grep -q 'Shepherd scheduler started: native engine' "$W/logs/rm-1.log" \
  || fail "the RM log does not say 'Shepherd scheduler started'"
say "RM log: $(grep -o 'Shepherd scheduler started: native engine [^,]*' "$W/logs/rm-1.log" | head -1), $(grep -o 'queues \[.*\]' "$W/logs/rm-1.log" | head -1)"

# Step 6: the sidecar, as its systemd unit runs it.
say "INSTALL.md 6: the sidecar (bin/shepherd sidecar) on the RM's REST API"
conf_sidecar="$CONF/shepherd-sidecar.toml"
python3 - "$conf_sidecar" "$RM_WEB" "$P_SIDECAR" <<'PY'
import sys
p, rm, port = sys.argv[1:]
t = open(p).read()
t = t.replace('listen = "127.0.0.1:9470"', f'listen = "127.0.0.1:{port}"', 1)
t = t.replace('addresses = ["http://127.0.0.1:8088"]', f'addresses = ["{rm}"]', 1)
t = t.replace('poll_interval_ms = 5000', 'poll_interval_ms = 1000', 1)
assert rm in t and port in t
open(p, "w").write(t)
PY
"$OPT/shepherd/bin/shepherd" sidecar --config "$conf_sidecar" --check >/dev/null
"$OPT/shepherd/bin/shepherd" sidecar --config "$conf_sidecar" >"$W/logs/sidecar.log" 2>&1 &
PIDS+=($!)
SIDECAR="http://127.0.0.1:$P_SIDECAR"
# sidecar_metric NAME: the value of an unlabelled series (empty if absent).
sidecar_metric() { curl -sf --max-time 5 "$SIDECAR/metrics" | awk -v n="$1" '$1 == n { print $2 }' | head -1; }
await_sidecar_nodes() {  # the sidecar polled the (current) RM and sees both NMs
  local deadline=$(( $(date +%s) + 60 ))
  until [ "$(sidecar_metric shepherd_sidecar_rm_up)" = 1 ] \
      && curl -sf --max-time 5 "$SIDECAR/metrics" | grep -q '^shepherd_cluster_nodes{state="active"} 2'; do
    [ "$(date +%s)" -lt "$deadline" ] || { curl -s "$SIDECAR/metrics" >"$W/logs/sidecar-metrics-last.txt"; fail "the sidecar's /metrics did not show the RM up with 2 active nodes (logs/sidecar-metrics-last.txt)"; }
    sleep 1
  done
}
await_sidecar_nodes
curl -sf "$SIDECAR/metrics" >"$W/logs/sidecar-metrics-1.txt"
say "sidecar /metrics: $(grep -c '^shepherd_' "$W/logs/sidecar-metrics-1.txt") shepherd_ samples, shepherd_sidecar_rm_up 1, shepherd_cluster_nodes{state="active"} 2"

# ---------------------------------------------------------------- jobs
JOB_PIDS=()
# submit QUEUE MAPS MAP_MS: `yarn jar <jobclient tests jar> sleep ...`, in the background.
submit() {
  local n=$(( ${#JOB_PIDS[@]} + 1 ))
  env "${DAEMON_ENV[@]}" HADOOP_CONF_DIR="$CONF" java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
    $JDK17_OPENS -cp "$(classpath "$CONF")" org.apache.hadoop.util.RunJar "$SLEEP_JAR" sleep \
    -Dmapreduce.job.queuename="$1" -Dmapreduce.job.name="installed-$n-$1" \
    -m "$2" -r 1 -mt "$3" -rt 1000 >"$W/logs/job-$n.log" 2>&1 &
  JOB_PIDS+=($!)
  PIDS+=($!)
}
for q in "${JOBS[@]}"; do submit "$q" "$MAPS" "$MAP_MS"; done
say "submitted ${#JOBS[@]} SleepJobs (RunJar $(basename "$SLEEP_JAR") sleep -m $MAPS -r 1 -mt $MAP_MS) to queues ${JOBS[*]}"

# What the RM, the NodeManagers and the CLI say now, as JSON in $W/state-LABEL.json.
cat >"$W/state.py" <<'PY'
import json, sys, urllib.request
rm, nms, out = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)
apps = {}
for a in (get(rm + "/ws/v1/cluster/apps").get("apps") or {}).get("app", []):
    att = get(f"{rm}/ws/v1/cluster/apps/{a['id']}/appattempts")
    apps[a["id"]] = {"state": a["state"], "final": a["finalStatus"], "queue": a["queue"],
                     "running": a.get("runningContainers", 0), "name": a["name"],
                     "attempts": len((att.get("appAttempts") or {}).get("appAttempt", []))}
live = []
for nm in nms:
    cs = (get(nm + "/ws/v1/node/containers").get("containers") or {}).get("container", [])
    live += [c["id"] for c in cs if c["state"] == "RUNNING"]
sched = get(rm + "/ws/v1/cluster/scheduler")["scheduler"]["schedulerInfo"]
metrics = get(rm + "/ws/v1/cluster/metrics")["clusterMetrics"]
# The shim's counters (/jmx), while Shepherd is the scheduler.
beans = get(rm + "/jmx?qry=Hadoop:service=ResourceManager,name=ShepherdScheduler").get("beans", [])
engine = {k: beans[0].get(k) for k in ("RecoveredContainers", "EngineAllocations", "EngineFailures",
                                       "FallbackAllocations")} if beans else None
json.dump({"apps": apps, "nm_running": sorted(live), "scheduler": sched.get("type"),
           "nodes": metrics["activeNodes"], "rm_containers": metrics["containersAllocated"],
           "engine": engine},
          open(out, "w"), indent=1)
PY
NM_WEBS="http://127.0.0.1:$P_NMW1,http://127.0.0.1:$P_NMW2"
state() { python3 "$W/state.py" "$RM_WEB" "$NM_WEBS" "$W/state-$1.json"; }
jq_py() { python3 -c "import json,sys; s=json.load(open('$W/state-$1.json')); print($2)"; }

# Every job's AM and maps running on the NodeManagers.
want=$(( ${#JOBS[@]} * (MAPS + 1) ))
deadline=$(( $(date +%s) + 180 ))
while :; do
  state now 2>/dev/null || true
  if [ -f "$W/state-now.json" ] && [ "$(jq_py now 'len(s["nm_running"])')" -ge "$want" ] \
     && [ "$(jq_py now 'sum(1 for a in s["apps"].values() if a["state"]=="RUNNING")')" = "${#JOBS[@]}" ]; then
    break
  fi
  for p in "${JOB_PIDS[@]}"; do kill -0 "$p" 2>/dev/null || { tail -20 "$W/logs/job-1.log" >&2; fail "a job client exited early"; }; done
  [ "$(date +%s)" -lt "$deadline" ] || fail "the jobs' $want AM and map containers were not all running within 180 s"
  sleep 2
done
say "all ${#JOBS[@]} jobs running: $want containers (AMs and maps) on the NodeManagers"

# The yarn CLI: application -list, queue -list all, rmadmin -refreshQueues.
cli_check() {  # LABEL: the CLI's view, kept in $W/logs/cli-LABEL.txt
  local f="$W/logs/cli-$1.txt"
  # The three side by side (each is a JVM start of a few seconds).
  { echo "\$ yarn application -list"; yarn_cli org.apache.hadoop.yarn.client.cli.ApplicationCLI application -list; } >"$f.1" &
  local a=$!
  { echo "\$ yarn queue -status default"; yarn_cli org.apache.hadoop.yarn.client.cli.QueueCLI -status default; } >"$f.2" &
  local b=$!
  { echo "\$ yarn queue -status alpha"; yarn_cli org.apache.hadoop.yarn.client.cli.QueueCLI -status alpha; } >"$f.3" &
  local c=$!
  wait "$a" && wait "$b" && wait "$c" || fail "the yarn CLI failed ($f.*, $W/logs/cli.log)"
  cat "$f.1" "$f.2" "$f.3" >"$f" && rm -f "$f.1" "$f.2" "$f.3"
  local listed
  listed=$(grep -c '^application_' "$f" || true)
  [ "$listed" -ge "$2" ] || fail "yarn application -list showed $listed apps, expected $2 ($f)"
  grep -q 'Queue Name : default' "$f" && grep -q 'Queue Name : alpha' "$f" \
    || fail "yarn queue -status did not describe both queues ($f)"
  QUEUE_STATES[$1]=$(awk '/Scheduler Name :/ { s = $4 } /Queue Name :/ { q = $4 } $1 == "State" { st = $3 }
    $1 == "Capacity" { printf "%s%s %s %s", sep, q, st, $3; sep = ", " } END { printf " (%s)", s }' "$f")
}
declare -A QUEUE_STATES
cli_check before "${#JOBS[@]}"
yarn_cli org.apache.hadoop.yarn.client.cli.RMAdminCLI -refreshQueues || fail "yarn rmadmin -refreshQueues"
say "yarn application -list: ${#JOBS[@]} running; queue -status: ${QUEUE_STATES[before]}; rmadmin -refreshQueues: ok"
state before

# Restart only the RM and wait until it has recovered what ran before.
restart_rm() {  # LABEL BASELINE (the state to compare with)
  local label="$1" base="$2"
  stop_rm
  sleep 1
  start_rm
  await_rm
  # Recovered: every app that was RUNNING is RUNNING again (or finished) and
  # the RM counts as many running containers as the NodeManagers hold.
  local deadline=$(( $(date +%s) + 120 ))
  while :; do
    if state "$label" 2>/dev/null && [ "$(python3 - "$W/state-$base.json" "$W/state-$label.json" <<'PY'
import json, sys
b, a = (json.load(open(p)) for p in sys.argv[1:])
ok = all(i in a["apps"] and a["apps"][i]["state"] in ("RUNNING", "FINISHED")
         for i, x in b["apps"].items() if x["state"] == "RUNNING")
rm = sum(x["running"] for x in a["apps"].values() if x["state"] == "RUNNING")
print("yes" if ok and rm == len(a["nm_running"]) and rm > 0 else "no")
PY
)" = yes ]; then
      break
    fi
    [ "$(date +%s)" -lt "$deadline" ] || fail "after the $label restart the RM did not recover the apps and containers within 120 s"
    sleep 2
  done
  # What must have survived: every app that ran, on its same attempt (no AM
  # restarted), and every AM container (the AMs outlive the restart; maps
  # may end during it and are reported in the summary, not checked).
  python3 - "$W/state-$base.json" "$W/state-$label.json" <<'PY' || fail "the $label restart lost work (state-$base.json, state-$label.json)"
import json, re, sys
b, a = (json.load(open(p)) for p in sys.argv[1:])
bad = []
for i, x in b["apps"].items():
    if x["state"] != "RUNNING":
        continue
    y = a["apps"].get(i)
    if y is None or y["state"] not in ("RUNNING", "FINISHED") or y["final"] not in ("UNDEFINED", "SUCCEEDED"):
        bad.append(f"{i}: {y and (y['state'], y['final'])}")
    elif y["attempts"] != x["attempts"]:
        bad.append(f"{i}: attempts {x['attempts']} -> {y['attempts']}")
def app_of(c):  # container_[eNN_]<cluster ts>_<app>_<attempt>_<n>
    m = re.match(r"container_(?:e\d+_)?(\d+)_(\d+)_\d+_\d+$", c)
    return f"application_{m.group(1)}_{m.group(2)}"
ams = [c for c in b["nm_running"] if c.endswith("_000001")]
bad += [f"AM container {c} no longer running" for c in ams
        if c not in a["nm_running"] and a["apps"].get(app_of(c), {}).get("state") != "FINISHED"]
for m in bad:
    print("installed-test:", m, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# ---------------------------------------------------------------- upgrade
say "UPGRADE: a second release directory, the $OPT/shepherd link moved, only the RM restarted"
mkdir -p "$OPT/upgrade"
tar -xzf "$UPGRADE_TARBALL" -C "$OPT/upgrade"
REL2=$(ls -d "$OPT"/upgrade/shepherd-*-hadoop-3.4-linux-x86_64 | head -1)
"$REL2/bin/shepherd" check-config "$CONF/shepherd.toml" >/dev/null || fail "the new release rejects shepherd.toml"
ln -sfn "$REL2" "$OPT/shepherd"
ln -sfn "$(ls "$OPT"/shepherd/lib/shepherd-yarn-shim-*.jar)" "$H/share/hadoop/yarn/shepherd-yarn-shim.jar"
OLD_RM_PID=$RM_PID
grep -q "$REL1/lib/libshepherd.so" "/proc/$RM_PID/maps" || fail "the first RM does not map $REL1/lib/libshepherd.so"
restart_rm upgrade before
grep -q "$REL2/lib/libshepherd.so" "/proc/$RM_PID/maps" || fail "the upgraded RM does not map $REL2/lib/libshepherd.so"
grep -q 'Shepherd scheduler started: native engine' "$W/logs/rm-$RM_RUN.log" || fail "the upgraded RM did not start Shepherd"
await_sidecar_nodes
say "upgraded: RM pid $OLD_RM_PID -> $RM_PID maps $REL2/lib/libshepherd.so; sidecar follows"
cli_check upgrade "${#JOBS[@]}"
# The new engine schedules: a job submitted now gets its containers from it.
submit alpha 1 1000
deadline=$(( $(date +%s) + 120 ))
until state after-upgrade-job 2>/dev/null \
    && [ "$(jq_py after-upgrade-job 'int(len(s["apps"]) > len(json.load(open("'"$W"'/state-upgrade.json"))["apps"]) and (s["engine"] or {}).get("EngineAllocations", 0) > 0)')" = 1 ]; do
  [ "$(date +%s)" -lt "$deadline" ] || fail "the upgraded engine placed nothing for a new job within 120 s"
  sleep 2
done
[ "$(jq_py after-upgrade-job 's["engine"]["EngineFailures"]')" = 0 ] || fail "the upgraded engine failed ($W/state-after-upgrade-job.json)"
say "a job submitted after the upgrade: the new engine placed $(jq_py after-upgrade-job 's["engine"]["EngineAllocations"]') container(s), recovered $(jq_py after-upgrade-job 's["engine"]["RecoveredContainers"]'), failures 0"

# ---------------------------------------------------------------- rollback
say "ROLLBACK: yarn.resourcemanager.scheduler.class = CapacityScheduler, RM restarted"
state before-rollback
conf set "$CONF/yarn-site.xml" \
  yarn.resourcemanager.scheduler.class=org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler
restart_rm rollback before-rollback
[ "$(jq_py rollback 's["scheduler"]')" = capacityScheduler ] || fail "the RM's scheduler is $(jq_py rollback 's["scheduler"]'), not the CapacityScheduler"
if grep -q "$REL2/lib/libshepherd.so" "/proc/$RM_PID/maps"; then fail "the rolled-back RM still loads Shepherd"; fi
cli_check rollback "${#JOBS[@]}"
yarn_cli org.apache.hadoop.yarn.client.cli.RMAdminCLI -refreshQueues || fail "yarn rmadmin -refreshQueues under the CapacityScheduler"
await_sidecar_nodes
say "rolled back: scheduler capacityScheduler; queue -status: ${QUEUE_STATES[rollback]}; sidecar follows"

# ---------------------------------------------------------------- the jobs finish
say "waiting for the jobs to finish"
rc_all=0
for i in "${!JOB_PIDS[@]}"; do
  if wait "${JOB_PIDS[$i]}"; then :; else rc_all=1; echo "installed-test: job $((i + 1)) client exited non-zero (logs/job-$((i + 1)).log)" >&2; fi
done
state end
[ "$(jq_py end 'sum(1 for a in s["apps"].values() if a["final"]=="SUCCEEDED")')" = "${#JOB_PIDS[@]}" ] \
  || { rc_all=1; echo "installed-test: not every app SUCCEEDED: $(jq_py end '{i: a["final"] for i, a in s["apps"].items()}')" >&2; }
curl -sf "$SIDECAR/metrics" >"$W/logs/sidecar-metrics-end.txt" || true

# ---------------------------------------------------------------- summary
WALL=$(( $(date +%s) - T0 ))
python3 - "$W" "${#JOB_PIDS[@]}" "$WALL" "${QUEUE_STATES[before]}" "${QUEUE_STATES[upgrade]}" "${QUEUE_STATES[rollback]}" <<'PY'
import json, sys
w, jobs, wall, qb, qu, qr = sys.argv[1:]
S = lambda n: json.load(open(f"{w}/state-{n}.json"))
before, up, brb, rb, end, job = (S(n) for n in ("before", "upgrade", "before-rollback", "rollback", "end",
                                                  "after-upgrade-job"))
def running(s): return {i for i, a in s["apps"].items() if a["state"] == "RUNNING"}
def rm_running(s): return sum(x["running"] for x in s["apps"].values() if x["state"] == "RUNNING")
fmt = "{:<22} {:<18} {:<10} {:<16} {:<13} {:<13} {:<13} {}"
print()
print(fmt.format("step", "scheduler", "apps kept", "containers kept", "RM's view", "into engine", "same attempt",
                 "queues (yarn queue -status)"))
print(fmt.format("before (jobs running)", "Shepherd", f"{len(running(before))}/{len(running(before))}",
                 f"{len(before['nm_running'])}/{len(before['nm_running'])}", rm_running(before), "-", "-", qb))
def row(step, sched, b, a, queues):
    done = {i for i, x in a["apps"].items() if x["final"] == "SUCCEEDED"}
    kept_apps = len(running(b) & (running(a) | done))
    kept_c = len(set(b["nm_running"]) & set(a["nm_running"]))
    same = all(a["apps"][i]["attempts"] == b["apps"][i]["attempts"] for i in running(b) if i in a["apps"])
    eng = a["engine"]["RecoveredContainers"] if a.get("engine") else "-"
    if step.startswith("upgrade"):  # /jmx lags (metrics are cached); read just before the rollback
        eng = brb["engine"]["RecoveredContainers"]
    print(fmt.format(step, sched, f"{kept_apps}/{len(running(b))}", f"{kept_c}/{len(b['nm_running'])}",
                     rm_running(a), eng, "yes" if same else "NO", queues))
row("upgrade (RM restart)", "Shepherd (new)", before, up, qu)
row("rollback (RM restart)", "CapacityScheduler", brb, rb, qr)
ok = sum(1 for a in end["apps"].values() if a["final"] == "SUCCEEDED")
print()
print("containers kept: the NodeManagers' RUNNING containers before the restart still RUNNING after it;")
print("RM's view: running containers the restarted RM reports for the apps; into engine: containers the")
print("shim handed to the new engine as recovered (RM /jmx RecoveredContainers).")
print(f"job submitted after the upgrade: {job['engine']['EngineAllocations']} container(s) placed by the new engine, "
      f"engine failures {job['engine']['EngineFailures']}")
print(f"jobs SUCCEEDED: {ok}/{jobs}: " + ", ".join(f"{i.split('_', 1)[1]} {a['queue']} {a['final']} (attempts {a['attempts']})"
                                              for i, a in sorted(end["apps"].items())))
print(f"wall time {wall} s")
PY
[ "$rc_all" = 0 ] || fail "not every job succeeded"
echo "installed-test: OK"
