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
