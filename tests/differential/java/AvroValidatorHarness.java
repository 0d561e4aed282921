// Differential-test harness (issue 3): answers Pulsar's Avro compatibility
// question with Avro Java's own SchemaValidator, as the Pulsar 2.4-2.5 broker
// (Avro 1.8.2) wrapped it in AvroSchemaBasedCompatibilityCheck:
//   - every definition parsed with its own `new Schema.Parser()` (1.8.2's
//     parser already has default validation off; 2.4-2.5 did not change it),
//     the existing list first (oldest to newest), then the new schema;
//   - the existing list reversed (newest first), then
//     new SchemaValidatorBuilder().<strategy>().validateLatest()/validateAll()
//     .validate(newSchema, existingNewestFirst).
//
// Input (one case per line, tab-separated, schemas as single-line JSON):
//   <id> TAB <BACKWARD|FORWARD|FULL> TAB <latest|all> TAB <n> TAB <existing 1..n, oldest first> TAB <new>
// Output: a first line "#avro TAB <Avro implementation version>", then one
// line per case, in input order:
//   <id> TAB compatible
//   <id> TAB incompatible [TAB <cause class>]       SchemaValidationException
//   <id> TAB parse-error TAB <message>              SchemaParseException
//   <id> TAB error TAB <class> TAB <message>        anything else thrown, StackOverflowError included
//
// Usage: java -cp <avro.jar and deps>:<dir> AvroValidatorHarness <input> <output>

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;

import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.avro.SchemaValidationException;
import org.apache.avro.SchemaValidator;
import org.apache.avro.SchemaValidatorBuilder;

public final class AvroValidatorHarness {
    private AvroValidatorHarness() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: AvroValidatorHarness <input> <output>");
            System.exit(2);
        }
        int cases = 0;
        try (BufferedReader in = Files.newBufferedReader(Paths.get(args[0]), StandardCharsets.UTF_8);
             BufferedWriter out = Files.newBufferedWriter(Paths.get(args[1]), StandardCharsets.UTF_8)) {
            out.write("#avro\t" + Schema.class.getPackage().getImplementationVersion() + "\n");
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isEmpty()) continue;
                String[] cols = line.split("\t", -1);
                out.write(cols[0]);
                out.write('\t');
                out.write(answer(cols));
                out.write('\n');
                ++cases;
            }
        }
        System.err.println("AvroValidatorHarness: " + cases + " cases, Avro " + Schema.class.getPackage().getImplementationVersion());
    }

    private static String answer(String[] cols) {
        String strategy = cols[1];
        boolean all = cols[2].equals("all");
        int n = Integer.parseInt(cols[3]);
        if (cols.length != 5 + n) return "error\tharness\tmalformed input line";
        // AvroSchemaBasedCompatibilityCheck: parse every existing schema, then the new one.
        LinkedList<Schema> existing = new LinkedList<>();
        Schema toValidate;
        try {
            for (int i = 0; i < n; ++i) existing.addFirst(new Schema.Parser().parse(cols[4 + i]));
            toValidate = new Schema.Parser().parse(cols[4 + n]);
        } catch (SchemaParseException e) {
            return "parse-error\t" + clean(e.getMessage());
        } catch (Throwable t) {
            return "error\t" + t.getClass().getName() + "\t" + clean(t.getMessage());
        }
        try {
            validator(strategy, all).validate(toValidate, existing);
            return "compatible";
        } catch (SchemaValidationException e) {
            Throwable cause = e.getCause();
            return cause == null ? "incompatible" : "incompatible\t" + cause.getClass().getName();
        } catch (StackOverflowError e) {
            return "error\t" + e.getClass().getName() + "\t";
        } catch (Throwable t) {
            return "error\t" + t.getClass().getName() + "\t" + clean(t.getMessage());
        }
    }

    private static SchemaValidator validator(String strategy, boolean all) {
        SchemaValidatorBuilder b = new SchemaValidatorBuilder();
        switch (strategy) {
            case "BACKWARD": b = b.canReadStrategy(); break;
            case "FORWARD": b = b.canBeReadStrategy(); break;
            case "FULL": b = b.mutualReadStrategy(); break;
            default: throw new IllegalArgumentException("unknown strategy " + strategy);
        }
        return all ? b.validateAll() : b.validateLatest();
    }

    private static String clean(String s) {
        return s == null ? "" : s.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    }
}
