package org.cnxsim.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The side-by-side benchmark (bench/README.md, "Side by side with a real
 * broker"): starts a real Pulsar broker and `cnxsim serve`, one after the
 * other, drives each with the same Pulsar Java client and prints one table
 * with both columns and the ratio real / serve.
 *
 * <p>Each side is a shell command that prints a line starting with "ready: "
 * holding pulsar://HOST:PORT and stops on SIGTERM. The real side runs first;
 * "{version}" in the serve command is replaced by the release the real broker
 * reported, so both serve the same release.
 */
public final class SideBySide {

    private SideBySide() {}

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("side-by-side: " + e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(2);
            return;
        }
        if (options.help) {
            System.out.println(Options.USAGE);
            return;
        }
        System.exit(run(options));
    }

    private static int run(Options options) {
        String loadBefore = Machine.loadAverage();
        String date = ZonedDateTime.now(ZoneOffset.UTC)
                .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
        List<SideResult> results = new ArrayList<>();
        String version = null;
        for (Side side : options.sides()) {
            SideResult result;
            if (side.command.contains("{version}") && version == null) {
                result = new SideResult(side.label, side.command);
                result.fail("not started: its command asks for {version}, but no earlier side "
                        + "printed a release in its ready line");
            } else {
                String command = version == null ? side.command : side.command.replace("{version}", version);
                System.err.println("side-by-side: " + side.label + ": " + command);
                result = Measurement.measure(side.label, command, options);
            }
            results.add(result);
            if (result.error != null) {
                System.err.println("side-by-side: " + side.label + ": " + result.error);
            }
            if (version == null) {
                version = result.version;
            }
        }
        Report report = new Report(options, date, loadBefore, Machine.loadAverage(), results);
        String table = report.render();
        System.out.print(table);
        if (options.output != null) {
            try {
                Files.writeString(Path.of(options.output), table, StandardCharsets.UTF_8);
            } catch (IOException e) {
                System.err.println("side-by-side: cannot write " + options.output + ": " + e.getMessage());
                return 1;
            }
        }
        for (SideResult result : results) {
            if (result.error != null) {
                return 1;
            }
        }
        return 0;
    }

    /** One server to measure: a label for the table and the shell command that starts it. */
    record Side(String label, String command) {}

    /** The command line. */
    static final class Options {
        static final String USAGE = String.join("\n",
                "usage: SideBySide --real CMD --serve CMD [--starts K] [--warm-up-starts S] [--producers N]",
                "                  [--messages M] [--size BYTES] [--window W] [--ready-timeout S]",
                "                  [--label-real L] [--label-serve L] [--log-dir DIR] [-o FILE]",
                "  --real CMD         starts the real broker (run first); a shell command",
                "  --serve CMD        starts cnxsim serve; {version} is replaced by the",
                "                     release in the real broker's ready line",
                "  --starts K         starts per side for start-to-ready (default 5); the",
                "                     last start serves the workload",
                "  --warm-up-starts S starts per side before those, not counted (default 1;",
                "                     0-10; their ready timeout is 1800 s: the first start",
                "                     of a release may download its jars)",
                "  --producers N      producers created and closed one after the other",
                "                     (default 1000, after N/10 warm-up, at most 50)",
                "  --messages M       messages sent by one producer (default 100000, after",
                "                     M/10 warm-up, at most 10000)",
                "  --size BYTES       payload size (default 100)",
                "  --window W         sends outstanding at most (default 1000)",
                "  --ready-timeout S  seconds to wait for a ready line (default 300)",
                "  --log-dir DIR      the servers' standard error, one file per start, kept",
                "                     when something went wrong (default: java.io.tmpdir)",
                "  -o FILE            also write the table to FILE");

        String real;
        String serve;
        String labelReal = "real broker";
        String labelServe = "cnxsim serve";
        int starts = 5;
        int warmupStarts = 1;
        int producers = 1000;
        int messages = 100_000;
        int size = 100;
        int window = 1000;
        int readyTimeoutSeconds = 300;
        String output;
        Path logDir = Path.of(System.getProperty("java.io.tmpdir"));
        boolean help;

        List<Side> sides() {
            return List.of(new Side(labelReal, real), new Side(labelServe, serve));
        }

        int producerWarmup() {
            return Math.min(producers / 10, 50);
        }

        int messageWarmup() {
            return Math.min(messages / 10, 10_000);
        }

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("-h") || a.equals("--help")) {
                    o.help = true;
                    return o;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value (or is not an option)");
                }
                String v = args[++i];
                switch (a) {
                    case "--real" -> o.real = v;
                    case "--serve" -> o.serve = v;
                    case "--label-real" -> o.labelReal = v;
                    case "--label-serve" -> o.labelServe = v;
                    case "--starts" -> o.starts = positive(a, v, 100);
                    case "--warm-up-starts" -> o.warmupStarts = inRange(a, v, 0, 10);
                    case "--producers" -> o.producers = positive(a, v, 1_000_000);
                    case "--messages" -> o.messages = positive(a, v, 100_000_000);
                    case "--size" -> o.size = positive(a, v, 5 * 1024 * 1024);
                    case "--window" -> o.window = positive(a, v, 100_000);
                    case "--ready-timeout" -> o.readyTimeoutSeconds = positive(a, v, 3600);
                    case "-o" -> o.output = v;
                    case "--log-dir" -> o.logDir = Path.of(v);
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (o.real == null || o.serve == null) {
                throw new IllegalArgumentException("--real and --serve are both needed");
            }
            return o;
        }

        private static int positive(String option, String value, int max) {
            return inRange(option, value, 1, max);
        }

        private static int inRange(String option, String value, int min, int max) {
            int n;
            try {
                n = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " takes a whole number, not '" + value + "'");
            }
            if (n < min || n > max) {
                throw new IllegalArgumentException(option + " must be between " + min + " and " + max
                        + ", not " + n);
            }
            return n;
        }
    }

    /** The machine the run is on, from /proc. */
    static final class Machine {
        private Machine() {}

        static String loadAverage() {
            String line = firstLine("/proc/loadavg");
            if (line == null) {
                return "unknown";
            }
            String[] f = line.split(" ");
            return f.length >= 3 ? f[0] + " " + f[1] + " " + f[2] : line;
        }

        static String describe() {
            String cpu = "unknown CPU";
            try {
                for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                    if (l.startsWith("model name")) {
                        cpu = l.substring(l.indexOf(':') + 1).trim();
                        break;
                    }
                }
            } catch (IOException e) {
                // stays "unknown CPU"
            }
            long memKiB = ProcTree.field("/proc/meminfo", "MemTotal:");
            return String.format(Locale.ROOT, "%s, %d hardware threads, %.1f GiB RAM, %s %s",
                    cpu, Runtime.getRuntime().availableProcessors(), memKiB / 1048576.0,
                    System.getProperty("os.name"), System.getProperty("os.version"));
        }

        private static String firstLine(String path) {
            try {
                List<String> lines = Files.readAllLines(Path.of(path));
                return lines.isEmpty() ? null : lines.get(0).trim();
            } catch (IOException e) {
                return null;
            }
        }
    }
}
