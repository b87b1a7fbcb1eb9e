package io.kfp.common.testing;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;

/** A bounded FLIP-27 source emitting the given elements, for jobs that take a {@code Source}. */
public final class ListSource {

    private ListSource() {}

    public static <T extends Serializable> DataGeneratorSource<T> of(
            List<T> elements, TypeInformation<T> type) {
        ArrayList<T> copy = new ArrayList<>(elements);
        return new DataGeneratorSource<>(index -> copy.get(index.intValue()), copy.size(), type);
    }
}
