# Shared by the scripts: repo root, prerequisite checks, the Rust build, the
# Maven builds and the JVM flags Hadoop 3.4 needs on JDK 17.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

need() {
  command -v "$1" >/dev/null 2>&1 || { echo "shepherd: '$1' is required ($2)" >&2; exit 1; }
}

check_prerequisites() {
  need cargo "Rust toolchain, https://rustup.rs"
  need java "JDK 17"
  need mvn "Apache Maven 3.8+"
  local v
  v=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
  if [ "${v:-0}" -lt 11 ]; then
    echo "shepherd: JDK 11 or newer is required (found ${v:-none})" >&2
    exit 1
  fi
}

# SHEPHERD_M2: a separate local Maven repository (e.g. for a second worktree
# whose shepherd-yarn-shim SNAPSHOT must not mix with another's).
MVN_REPO=()
if [ -n "${SHEPHERD_M2:-}" ]; then
  MVN_REPO=(-Dmaven.repo.local="$SHEPHERD_M2")
fi
# HADOOP_PROFILE=hadoop-3.5 builds the shim and runs the integration suite
# against Hadoop 3.5.x (the Maven profile of that name); unset = 3.4.x.
if [ -n "${HADOOP_PROFILE:-}" ]; then
  MVN_REPO+=(-P"$HADOOP_PROFILE")
fi
MVN=(mvn -B -q -Dstyle.color=never "${MVN_REPO[@]}")
# SHEPHERD_MVN_OFFLINE=1: Maven -o (everything already in the local repository).
if [ -n "${SHEPHERD_MVN_OFFLINE:-}" ]; then
  MVN+=(-o)
fi

build_engine() {
  echo "==> building the Rust engine (cargo build --release)"
  cargo build --release --locked
}

build_shim() {
  echo "==> building the Java shim (Maven, Hadoop jars from Maven Central)"
  "${MVN[@]}" -f java-shim/pom.xml install -DskipTests
}

# Both, unless SHEPHERD_SKIP_BUILD=1 (the caller, e.g. scripts/test.sh, has
# just built them, or the run must use them as they are).
build_engine_and_shim() {
  if [ -z "${SHEPHERD_SKIP_BUILD:-}" ]; then
    build_engine
    build_shim
  fi
}

# Hadoop 3.4 reflects into JDK internals; JDK 17 needs these opened.
JDK17_OPENS="--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.security=ALL-UNNAMED --add-opens=java.base/javax.security.auth=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED"

# Classpath of the integration module (Hadoop RM, NM, MapReduce, the shim).
integration_classpath() {
  "${MVN[@]}" -f integration/pom.xml compile dependency:build-classpath \
    -Dmdep.outputFile="$ROOT/integration/target/classpath.txt" >/dev/null
  echo "$ROOT/integration/target/classes:$(cat "$ROOT/integration/target/classpath.txt")"
}

# Classpath of the apps module (the integration harness's sources compiled
# again beside Spark's and Tez's clients, and Tez's jars laid out in
# apps/target/tez-lib for tez.lib.uris): what the comparison harness runs
# from when a trace has SPARK or TEZ jobs.
apps_classpath() {
  echo "==> building the apps module (Maven, Spark and Tez from Maven Central)" >&2
  "${MVN[@]}" -f "$ROOT/apps/pom.xml" test-compile dependency:build-classpath \
    -Dmdep.outputFile="$ROOT/apps/target/classpath.txt" >/dev/null || return 1
  echo "$ROOT/apps/target/classes:$(cat "$ROOT/apps/target/classpath.txt")"
}

# Builds the SLS module (hadoop-sls from Maven Central) and prints its
# classpath; SHEPHERD_SLS_SHIM_JAR names a shim jar to use instead of the
# installed one (e.g. one with an unmerged fix).
sls_classpath() {
  echo "==> building the SLS module (Maven, hadoop-sls from Maven Central)" >&2
  "${MVN[@]}" -f "$ROOT/sls/pom.xml" package -DskipTests dependency:build-classpath \
    -Dmdep.outputFile="$ROOT/sls/target/classpath.txt" >/dev/null || return 1
  local deps
  deps="$(cat "$ROOT/sls/target/classpath.txt")"
  if [ -n "${SHEPHERD_SLS_SHIM_JAR:-}" ]; then
    # The named jar replaces the installed shim on the classpath.
    deps="$(echo "$deps" | tr ':' '\n' | grep -v '/shepherd-yarn-shim/' | paste -sd: -)"
    deps="$SHEPHERD_SLS_SHIM_JAR:$deps"
    echo "==> using the shim jar $SHEPHERD_SLS_SHIM_JAR" >&2
  fi
  echo "$ROOT/sls/target/classes:$deps"
}

# Cores busy on the whole machine over 2 s, ×100 (from /proc/stat).
busy_centicores() {
  local a b
  read -ra a < <(head -1 /proc/stat)
  sleep 2
  read -ra b < <(head -1 /proc/stat)
  local busy=$(( (b[1]+b[2]+b[3]+b[6]+b[7]+b[8]) - (a[1]+a[2]+a[3]+a[6]+a[7]+a[8]) ))
  local all=$(( busy + (b[4]+b[5]) - (a[4]+a[5]) ))
  echo $(( all > 0 ? busy * 100 * $(nproc) / all : 0 ))
}

# SLS runs in real time: a compile or test running next to it slows the
# simulation and every figure. Wait (bounded, QUIET_WAIT_S seconds) for the
# machine to be idle (scripts/sls-bench.sh, scripts/compare-sls.sh).
wait_for_quiet() {
  local waited=0 busy
  while busy=$(busy_centicores); [ "$busy" -gt 50 ] && [ "$waited" -lt "$QUIET_WAIT_S" ]; do
    if [ "$waited" = 0 ]; then
      echo "    machine busy ($busy/100 cores in use); waiting up to ${QUIET_WAIT_S} s for it to be idle"
    fi
    sleep 8
    waited=$(( waited + 10 ))
  done
  if [ "$busy" -gt 50 ]; then
    echo "    still busy ($busy/100 cores); running anyway (see the table's 'other load')"
  fi
}
