package org.cnxsim.bench;

import java.util.ArrayList;
import java.util.List;

/** What was measured on one side; a figure not measured stays NaN (or -1 for memory). */
final class SideResult {
    final String label;
    final String command;
    String readyLine;
    String version;
    final List<Double> startMillis = new ArrayList<>();
    final List<Double> warmupStartMillis = new ArrayList<>();
    double producerP50Millis = Double.NaN;
    double producerP99Millis = Double.NaN;
    double producerMaxMillis = Double.NaN;
    double sendsPerSecond = Double.NaN;
    /** The server tree's CPU time over the timed sends, per message. */
    double serverCpuMicrosPerSend = Double.NaN;
    long rssKiB = -1;
    /** The first thing that went wrong, or null. */
    String error;

    SideResult(String label, String command) {
        this.label = label;
        this.command = command;
    }

    void fail(String what) {
        if (error == null) {
            error = what;
        }
    }

    double medianStartMillis() {
        return Stats.percentile(startMillis, 0.5);
    }
}
