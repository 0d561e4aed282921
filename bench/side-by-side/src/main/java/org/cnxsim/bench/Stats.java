package org.cnxsim.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Percentiles by nearest rank, as latency figures are usually quoted. */
final class Stats {
    private Stats() {}

    /** The value at rank ceil(p * n) of the sorted values; NaN for none. */
    static double percentile(List<Double> values, double p) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int rank = (int) Math.ceil(p * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size(), rank) - 1));
    }
}
