"""Protobuf message classes for the PROTOBUF_NATIVE tests, built from descriptors
at import (no protoc step): cnxsim_test.proto with Order and Quote, and OrderV2,
the same cnxsim.test.Order with a field added (the next version of that file)."""
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

FIELD = descriptor_pb2.FieldDescriptorProto


def _message(file_proto, name, fields):
    message = file_proto.message_type.add()
    message.name = name
    for number, (field_name, field_type) in enumerate(fields, start=1):
        field = message.field.add()
        field.name, field.number, field.type = field_name, number, field_type
        field.label = FIELD.LABEL_OPTIONAL


def _classes(file_name, package, messages):
    file_proto = descriptor_pb2.FileDescriptorProto(name=file_name, package=package, syntax="proto3")
    for name, fields in messages:
        _message(file_proto, name, fields)
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(file_proto.SerializeToString())
    return [message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{package}.{name}")) for name, _ in messages]


ORDER_FIELDS = [("id", FIELD.TYPE_INT64), ("item", FIELD.TYPE_STRING)]
Order, Quote = _classes("cnxsim_test.proto", "cnxsim.test", [
    ("Order", ORDER_FIELDS),
    ("Quote", [("symbol", FIELD.TYPE_STRING)]),
])
(OrderV2,) = _classes("cnxsim_test.proto", "cnxsim.test", [("Order", ORDER_FIELDS + [("quantity", FIELD.TYPE_INT32)])])
