// Avro Java timing harness for bench/compat (issue 3 "Speed"): runs the cases
// bench_compat wrote (manifest.txt + .avsc files) the way Pulsar's
// AvroSchemaBasedCompatibilityCheck does, against Debian's Avro 1.8.2.
//
// Two variants per case, timed inside the JVM after a JIT warm-up, both with
// System.nanoTime (wall clock) and with the benchmark thread's CPU time
// (ThreadMXBean; JIT and GC threads excluded, which favours Java) so that a
// loaded machine does not distort the comparison:
//   reparse    - Pulsar's path: every stored version and the new schema are
//                parsed on every check (Schema.Parser, default validation
//                off), the list is built newest first (addFirst) and a new
//                SchemaValidatorBuilder validator runs validate(to, list).
//   preparsed  - the schemas parsed once up front; only the validator runs.
//
// Usage: java -cp <avro + deps>:<classes> CompatBench DIR [seconds-per-case] [case-filter]
// Output: one line per case: name, then ns/op for reparse wall, reparse CPU,
// preparsed wall, preparsed CPU (tab-separated; medians of 5 timed batches).

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedList;
import java.util.List;

import org.apache.avro.Schema;
import org.apache.avro.SchemaValidationException;
import org.apache.avro.SchemaValidator;
import org.apache.avro.SchemaValidatorBuilder;

public class CompatBench {
    interface Op {
        void run() throws SchemaValidationException;
    }

    static volatile Object sink;

    // AvroSchemaBasedCompatibilityCheck.createSchemaValidator for the strategies the cases use.
    static SchemaValidator validator(String strategy) {
        switch (strategy) {
            case "BACKWARD": return new SchemaValidatorBuilder().canReadStrategy().validateLatest();
            case "FORWARD": return new SchemaValidatorBuilder().canBeReadStrategy().validateLatest();
            case "FULL": return new SchemaValidatorBuilder().mutualReadStrategy().validateLatest();
            case "BACKWARD_TRANSITIVE": return new SchemaValidatorBuilder().canReadStrategy().validateAll();
            case "FORWARD_TRANSITIVE": return new SchemaValidatorBuilder().canBeReadStrategy().validateAll();
            case "FULL_TRANSITIVE": return new SchemaValidatorBuilder().mutualReadStrategy().validateAll();
            default: throw new IllegalArgumentException(strategy);
        }
    }

    static Schema parse(byte[] data) {
        Schema.Parser parser = new Schema.Parser();
        parser.setValidateDefaults(false);  // Pulsar 2.6.0+
        return parser.parse(new String(data, StandardCharsets.UTF_8));
    }

    // AvroSchemaBasedCompatibilityCheck.checkCompatible(Iterable<SchemaData> from, SchemaData to, strategy).
    static void pulsarCheck(List<byte[]> from, byte[] to, String strategy) throws SchemaValidationException {
        LinkedList<Schema> fromList = new LinkedList<>();
        for (byte[] data : from) fromList.addFirst(parse(data));
        Schema toSchema = parse(to);
        validator(strategy).validate(toSchema, fromList);
    }

    static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    // Runs op n times; returns {elapsed wall ns, elapsed thread CPU ns}.
    static long[] timeBatch(Op op, long n) throws SchemaValidationException {
        long cpu = THREADS.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        for (long i = 0; i < n; i++) op.run();
        return new long[] {System.nanoTime() - start, THREADS.getCurrentThreadCpuTime() - cpu};
    }

    static double median(double[] xs) {
        double[] sorted = xs.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    // Warm-up for at least `seconds` and 20 runs, then 5 batches of about
    // seconds/5 each: {median wall ns/op, median CPU ns/op}.
    static double[] measure(Op op, double seconds) throws SchemaValidationException {
        long budget = (long) (seconds * 1e9);
        long runs = 0, spent = 0;
        while (spent < budget || runs < 20) {
            spent += timeBatch(op, 1)[0];
            runs++;
        }
        double perOp = (double) spent / runs;
        long batch = Math.max(1, (long) (budget / 5 / perOp));
        double[] wall = new double[5], cpu = new double[5];
        for (int i = 0; i < wall.length; i++) {
            long[] t = timeBatch(op, batch);
            wall[i] = (double) t[0] / batch;
            cpu[i] = (double) t[1] / batch;
        }
        return new double[] {median(wall), median(cpu)};
    }

    public static void main(String[] args) throws Exception {
        Path dir = Paths.get(args[0]);
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 2.0;
        String filter = args.length > 2 ? args[2] : "";
        for (String line : Files.readAllLines(dir.resolve("manifest.txt"), StandardCharsets.UTF_8)) {
            String[] cols = line.split("\t");
            if (cols.length < 5 || !cols[0].contains(filter)) continue;
            String name = cols[0], strategy = cols[1];
            List<byte[]> existing = new ArrayList<>();
            for (int i = 4; i < cols.length - 1; i++) existing.add(Files.readAllBytes(dir.resolve(cols[i])));
            byte[] candidate = Files.readAllBytes(dir.resolve(cols[cols.length - 1]));

            pulsarCheck(existing, candidate, strategy);  // fails loudly if the case is not compatible
            double[] reparse = measure(() -> pulsarCheck(existing, candidate, strategy), seconds);

            LinkedList<Schema> fromList = new LinkedList<>();
            for (byte[] data : existing) fromList.addFirst(parse(data));
            Schema to = parse(candidate);
            double[] preparsed = measure(() -> validator(strategy).validate(to, fromList), seconds);
            sink = fromList;
            System.out.printf("%s\t%.0f\t%.0f\t%.0f\t%.0f%n", name, reparse[0], reparse[1], preparsed[0], preparsed[1]);
            System.out.flush();
        }
    }
}
