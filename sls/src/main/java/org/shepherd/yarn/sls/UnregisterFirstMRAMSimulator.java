package org.shepherd.yarn.sls;

import java.security.PrivilegedExceptionAction;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.api.protocolrecords.FinishApplicationMasterRequest;
import org.apache.hadoop.yarn.api.protocolrecords.FinishApplicationMasterResponse;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.security.AMRMTokenIdentifier;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.sls.appmaster.MRAMSimulator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SLS's MapReduce AM simulator, ending as a real MapReduce AM ends: it
 * unregisters from the RM first, and only then lets its AM container go.
 *
 * <p>Why: SLS's {@code AMSimulator.lastStep} (Hadoop 3.4) hands its AM
 * container to the simulated NM as finished first and unregisters after.
 * When that NM heartbeats in between, the RM sees the AM container exit
 * while the attempt is still RUNNING and fails it ("failed 1 times"),
 * although every task finished. If the attempt has also left the
 * ApplicationMasterService before the unregister arrives, the unregister
 * throws and SLS never writes the job's {@code jobruntime.csv} row.
 *
 * <p>AM and NM ticks are phase-locked in SLS: an AM's steps keep the phase of
 * its trace start, and a scheduler that places every AM on the first node to
 * heartbeat after the submissions puts them on the NM whose heartbeat
 * follows that phase most closely. Then all the jobs' last steps race the
 * same heartbeat. Shepherd's drf on the SLS test's trace lost that race in
 * about a quarter of runs (all six jobs FAILED in the RM), and once in CI
 * all six rows were lost. The order here is the one {@code
 * AMRMClient.unregisterApplicationMaster} follows: ask until the RM says the
 * attempt is unregistered, then exit. Every scheduler of a run gets this
 * simulator ({@code yarn.sls.am.type.mapreduce}), so comparisons stay even.
 */
public class UnregisterFirstMRAMSimulator extends MRAMSimulator {
  private static final Logger LOG = LoggerFactory.getLogger(UnregisterFirstMRAMSimulator.class);
  /** How long to keep asking the RM, as AMRMClient does, before leaving it to SLS. */
  private static final long UNREGISTER_TIMEOUT_MS = 10_000;
  private static final long UNREGISTER_RETRY_MS = 10;

  private boolean unregistered;

  @Override
  public void lastStep() throws Exception {
    if (!unregistered) {
      unregistered = true;
      unregisterWhileRunning();
    }
    // SLS's own last step: releases the AM container, asks once more (the
    // RM answers at once: the app's final state is stored) and writes the
    // job's row to jobruntime.csv.
    super.lastStep();
  }

  /**
   * Unregisters the attempt with status SUCCEEDED and waits until the RM has
   * stored the app's final state. Only for an attempt that is RUNNING: one
   * that already failed (say its AM container was preempted) is left to
   * SLS as before.
   */
  private void unregisterWhileRunning() throws Exception {
    if (appAttemptId == null) {
      return;
    }
    RMApp app = rm.getRMContext().getRMApps().get(appId);
    RMAppAttempt attempt = app == null ? null : app.getRMAppAttempt(appAttemptId);
    if (attempt == null || attempt.getAppAttemptState() != RMAppAttemptState.RUNNING) {
      return;
    }
    FinishApplicationMasterRequest request =
        FinishApplicationMasterRequest.newInstance(FinalApplicationStatus.SUCCEEDED, "", "");
    UserGroupInformation ugi = UserGroupInformation.createRemoteUser(appAttemptId.toString());
    Token<AMRMTokenIdentifier> token = attempt.getAMRMToken();
    ugi.addTokenIdentifier(token.decodeIdentifier());
    long deadline = System.nanoTime() + UNREGISTER_TIMEOUT_MS * 1_000_000L;
    while (true) {
      FinishApplicationMasterResponse response = ugi.doAs(
          (PrivilegedExceptionAction<FinishApplicationMasterResponse>) () ->
              rm.getApplicationMasterService().finishApplicationMaster(request));
      if (response.getIsUnregistered()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        LOG.warn("{} not unregistered after {} ms; SLS's last step goes on", appAttemptId,
            UNREGISTER_TIMEOUT_MS);
        return;
      }
      Thread.sleep(UNREGISTER_RETRY_MS);
    }
  }
}
