package org.cnxsim.bench;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/** The table of one run, in Markdown so that it pastes into bench/README.md. */
final class Report {
    private final SideBySide.Options options;
    private final String date;
    private final String loadBefore;
    private final String loadAfter;
    private final SideResult real;
    private final SideResult serve;

    Report(SideBySide.Options options, String date, String loadBefore, String loadAfter,
           List<SideResult> results) {
        this.options = options;
        this.date = date;
        this.loadBefore = loadBefore;
        this.loadAfter = loadAfter;
        this.real = results.get(0);
        this.serve = results.size() > 1 ? results.get(1) : new SideResult(options.labelServe, options.serve);
    }

    String render() {
        StringBuilder out = new StringBuilder();
        out.append("Side by side, ").append(date).append('\n').append('\n');
        out.append("- machine: ").append(SideBySide.Machine.describe()).append('\n');
        out.append("- load average (1, 5, 15 min): ").append(loadBefore).append(" before, ")
                .append(loadAfter).append(" after\n");
        out.append("- client: org.apache.pulsar:pulsar-client-original ").append(clientVersion())
                .append(" on Java ").append(System.getProperty("java.version"))
                .append(", one client JVM drives both sides\n");
        side(out, real);
        side(out, serve);
        out.append(String.format(Locale.ROOT,
                "- %d starts per side after %d not counted; N = %d producers created and closed one after the other "
                        + "(after %d not counted); M = %d messages of %d bytes, batching off, "
                        + "at most %d outstanding (after %d not counted)%n%n",
                options.starts, options.warmupStarts, options.producers, options.producerWarmup(), options.messages,
                options.size, options.window, options.messageWarmup()));
        out.append("| figure | ").append(real.label).append(" | ").append(serve.label)
                .append(" | ").append(real.label).append(" / ").append(serve.label).append(" |\n");
        out.append("|---|--:|--:|--:|\n");
        row(out, "start to ready (median of " + options.starts + ")", SideResult::medianStartMillis,
                Report::duration);
        row(out, "producer creation p50", r -> r.producerP50Millis, Report::duration);
        row(out, "producer creation p99", r -> r.producerP99Millis, Report::duration);
        row(out, "SEND with receipts", r -> r.sendsPerSecond,
                v -> String.format(Locale.ROOT, "%,.0f msg/s", v));
        row(out, "server CPU time per SEND (user + system)", r -> r.serverCpuMicrosPerSend,
                v -> String.format(Locale.ROOT, "%.1f µs", v));
        row(out, "resident memory after the workload", r -> r.rssKiB < 0 ? Double.NaN : r.rssKiB,
                v -> String.format(Locale.ROOT, "%.1f MiB", v / 1024));
        out.append('\n');
        starts(out, real);
        starts(out, serve);
        return out.toString();
    }

    private static void side(StringBuilder out, SideResult r) {
        out.append("- ").append(r.label).append(": `").append(r.command).append("`");
        if (r.readyLine != null) {
            out.append(", ready line `").append(r.readyLine).append('`');
        }
        out.append('\n');
        if (r.error != null) {
            out.append("  - NOT MEASURED IN FULL: ").append(r.error.replace('\n', ' ')).append('\n');
        }
    }

    private void row(StringBuilder out, String name, ToDoubleFunction<SideResult> figure,
                     Function<Double, String> format) {
        double a = figure.applyAsDouble(real);
        double b = figure.applyAsDouble(serve);
        out.append("| ").append(name).append(" | ").append(cell(a, format)).append(" | ")
                .append(cell(b, format)).append(" | ");
        out.append(Double.isNaN(a) || Double.isNaN(b) || b == 0 ? "not measured"
                : ratio(a / b));
        out.append(" |\n");
    }

    /** Three significant digits, without an exponent. */
    static String ratio(double r) {
        if (r >= 100) {
            return String.format(Locale.ROOT, "%.0f", r);
        }
        return String.format(Locale.ROOT, r >= 10 ? "%.1f" : r >= 1 ? "%.2f" : "%.3f", r);
    }

    private static String cell(double v, Function<Double, String> format) {
        return Double.isNaN(v) ? "not measured" : format.apply(v);
    }

    private static void starts(StringBuilder out, SideResult r) {
        out.append("- ").append(r.label).append(" starts: ")
                .append(r.startMillis.isEmpty() ? "none ready"
                        : r.startMillis.stream().map(Report::duration).collect(Collectors.joining(", ")));
        if (!r.warmupStartMillis.isEmpty()) {
            out.append(" (not counted: ")
                    .append(r.warmupStartMillis.stream().map(Report::duration).collect(Collectors.joining(", ")))
                    .append(')');
        }
        if (!Double.isNaN(r.producerMaxMillis)) {
            out.append("; slowest producer creation ").append(duration(r.producerMaxMillis));
        }
        out.append('\n');
    }

    static String duration(double millis) {
        if (millis >= 1000) {
            return String.format(Locale.ROOT, "%.2f s", millis / 1000);
        }
        if (millis >= 10) {
            return String.format(Locale.ROOT, "%.1f ms", millis);
        }
        return String.format(Locale.ROOT, "%.3f ms", millis);
    }

    private static String clientVersion() {
        try {
            Class<?> v = Class.forName("org.apache.pulsar.PulsarVersion");
            return (String) v.getMethod("getVersion").invoke(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "(version unknown)";
        }
    }
}
