package org.cnxsim.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.schema.GenericRecord;
import org.apache.pulsar.client.impl.schema.ProtobufNativeSchemaUtils;
import org.apache.pulsar.common.schema.SchemaInfo;
import org.apache.pulsar.common.schema.SchemaType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * PROTOBUF_NATIVE without a generated class: the descriptor is built at run time, its schema
 * data made by the client's own ProtobufNativeSchemaUtils (what Schema.PROTOBUF_NATIVE(Class)
 * sends), produced through AUTO_PRODUCE_BYTES(schema) and read back with AUTO_CONSUME.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProtobufNativeTest {
    @RegisterExtension
    static final CnxsimServe SERVE = new CnxsimServe();

    PulsarClient client;
    PulsarAdmin admin;

    @BeforeEach
    void clients() throws Exception {
        client = SERVE.client();
        admin = SERVE.admin();
    }

    static Descriptor message(String name, String file) throws Exception {
        FileDescriptorProto proto = FileDescriptorProto.newBuilder()
                .setName(file).setPackage("cnxsim").setSyntax("proto3")
                .addMessageType(DescriptorProto.newBuilder().setName(name)
                        .addField(FieldDescriptorProto.newBuilder().setName("sensor").setNumber(1)
                                .setType(FieldDescriptorProto.Type.TYPE_STRING))
                        .addField(FieldDescriptorProto.newBuilder().setName("value").setNumber(2)
                                .setType(FieldDescriptorProto.Type.TYPE_DOUBLE)))
                .build();
        return FileDescriptor.buildFrom(proto, new FileDescriptor[0]).findMessageTypeByName(name);
    }

    static SchemaInfo info(Descriptor descriptor) {
        return SchemaInfo.builder().name(descriptor.getName()).type(SchemaType.PROTOBUF_NATIVE)
                .schema(ProtobufNativeSchemaUtils.serialize(descriptor)).properties(Map.of()).build();
    }

    @Test
    void producedAndReadBackWithTheTopicsSchema() throws Exception {
        Descriptor reading = message("Reading", "reading.proto");
        String topic = Clients.topic("protobuf-native");
        Schema<?> schema = Schema.getSchema(info(reading));
        try (Consumer<GenericRecord> consumer = client.newConsumer(Schema.AUTO_CONSUME()).topic(topic)
                        .subscriptionName("s").subscribe();
                Producer<byte[]> producer = client.newProducer(Schema.AUTO_PRODUCE_BYTES(schema)).topic(topic).create()) {
            byte[] payload = DynamicMessage.newBuilder(reading)
                    .setField(reading.findFieldByName("sensor"), "t1")
                    .setField(reading.findFieldByName("value"), 21.5)
                    .build().toByteArray();
            producer.send(payload);
            Message<GenericRecord> m = consumer.receive(10, TimeUnit.SECONDS);
            assertNotNull(m);
            assertEquals(0L, Clients.version(m));
            assertEquals(SchemaType.PROTOBUF_NATIVE, m.getValue().getSchemaType());
            assertEquals("t1", m.getValue().getField("sensor"));
            assertEquals(21.5, m.getValue().getField("value"));
        }
        SchemaInfo stored = admin.schemas().getSchemaInfo(topic);
        assertEquals(SchemaType.PROTOBUF_NATIVE, stored.getType());
        assertEquals(new String(info(reading).getSchema()), new String(stored.getSchema()));

        // Another root message on the same topic is refused.
        Descriptor other = message("Other", "other.proto");
        PulsarClientException.IncompatibleSchemaException e = assertThrows(
                PulsarClientException.IncompatibleSchemaException.class,
                () -> client.newProducer(Schema.AUTO_PRODUCE_BYTES(Schema.getSchema(info(other)))).topic(topic).create());
        String cause = "org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException: "
                + "Protobuf root message change is not allowed under the 'FULL' strategy. "
                + "Original message name: 'cnxsim.Reading', new message name: 'cnxsim.Other'.";
        assertEquals(cause + " caused by " + cause, Clients.brokerText(e));
    }
}
