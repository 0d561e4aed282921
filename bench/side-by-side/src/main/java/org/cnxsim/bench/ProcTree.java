package org.cnxsim.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Resident memory of a process and everything it started, read from
 * /proc/PID/status (VmRSS), since a start command may be a script around the
 * process that serves (tests/oracle/run-broker is one around java).
 */
final class ProcTree {
    private ProcTree() {}

    /** The root and its living descendants. */
    static List<ProcessHandle> members(ProcessHandle root) {
        List<ProcessHandle> all = new ArrayList<>();
        all.add(root);
        root.descendants().forEach(all::add);
        return all;
    }

    /** VmRSS summed over the tree, in KiB; -1 when /proc cannot be read for the root. */
    static long rssKiB(ProcessHandle root) {
        long sum = 0;
        for (ProcessHandle p : members(root)) {
            long kib = field("/proc/" + p.pid() + "/status", "VmRSS:");
            if (kib < 0 && p.equals(root)) {
                return -1;
            }
            sum += Math.max(kib, 0);
        }
        return sum;
    }

    /** The number after KEY in a /proc file of "Key:  123 kB" lines; -1 when absent. */
    static long field(String path, String key) {
        try {
            for (String line : Files.readAllLines(Path.of(path))) {
                if (line.startsWith(key)) {
                    String[] parts = line.substring(key.length()).trim().split("\\s+");
                    return Long.parseLong(parts[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }
}
