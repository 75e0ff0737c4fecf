"""The three worlds we ship (written for this environment; every name and figure is invented),
each turned into a scenario by the one generator (:func:`.generator.generate`)."""

from __future__ import annotations

from agent_world_model_env.server.generator import (
    Change,
    Scenario,
    Table,
    Task,
    WorldSpec,
    generate,
)

E_COMMERCE = WorldSpec(
    name="e_commerce_1",
    description="An online shop: a product catalogue with stock, and customer orders.",
    tables=(
        Table(
            "products",
            "product",
            {"id": "int", "name": "str", "price": "float", "stock": "int"},
            [
                {"id": 1, "name": "Desk Lamp", "price": 24.5, "stock": 12},
                {"id": 2, "name": "Oak Shelf", "price": 89.0, "stock": 3},
                {"id": 3, "name": "Wool Rug", "price": 140.0, "stock": 0},
                {"id": 4, "name": "Tea Kettle", "price": 31.9, "stock": 25},
            ],
        ),
        Table(
            "orders",
            "order",
            {"id": "int", "product_id": "int", "quantity": "int", "status": "str"},
            [
                {"id": 1, "product_id": 4, "quantity": 1, "status": "shipped"},
                {"id": 2, "product_id": 2, "quantity": 1, "status": "placed"},
            ],
        ),
    ),
    tasks=(
        Task(
            "Order 2 Desk Lamps (status 'placed') and take them out of the lamp's stock.",
            (
                Change("insert", "orders", {"product_id": 1, "quantity": 2, "status": "placed"}),
                Change("update", "products", {"stock": 10}, id=1),
            ),
        ),
        Task(
            "Cancel order 2 (set its status to 'cancelled') and put its item back in stock.",
            (
                Change("update", "orders", {"status": "cancelled"}, id=2),
                Change("update", "products", {"stock": 4}, id=2),
            ),
        ),
        Task(
            "The Wool Rug is discontinued: delete it from the catalogue.",
            (Change("delete", "products", id=3),),
        ),
    ),
)

CALENDAR = WorldSpec(
    name="calendar_1",
    description="A team calendar: meetings in rooms, by day and hour.",
    tables=(
        Table(
            "meetings",
            "meeting",
            {"id": "int", "title": "str", "day": "str", "hour": "int", "room": "str"},
            [
                {"id": 1, "title": "Standup", "day": "Mon", "hour": 9, "room": "Blue"},
                {"id": 2, "title": "Design review", "day": "Tue", "hour": 14, "room": "Green"},
                {"id": 3, "title": "Budget", "day": "Wed", "hour": 11, "room": "Blue"},
            ],
        ),
        Table(
            "rooms",
            "room",
            {"id": "int", "name": "str", "seats": "int"},
            [
                {"id": 1, "name": "Blue", "seats": 6},
                {"id": 2, "name": "Green", "seats": 12},
            ],
        ),
    ),
    tasks=(
        Task(
            "Book a 'Hiring sync' on Thu at 10 in the Green room.",
            (
                Change(
                    "insert",
                    "meetings",
                    {"title": "Hiring sync", "day": "Thu", "hour": 10, "room": "Green"},
                ),
            ),
        ),
        Task(
            "Move the Budget meeting to Fri at 15, same room.",
            (Change("update", "meetings", {"day": "Fri", "hour": 15}, id=3),),
        ),
        Task("Cancel the Design review.", (Change("delete", "meetings", id=2),)),
    ),
)

BANKING = WorldSpec(
    name="banking_1",
    description="A small bank: accounts with balances and a ledger of transfers.",
    tables=(
        Table(
            "accounts",
            "account",
            {"id": "int", "owner": "str", "balance": "float"},
            [
                {"id": 1, "owner": "Ada", "balance": 500.0},
                {"id": 2, "owner": "Ben", "balance": 120.0},
                {"id": 3, "owner": "Cleo", "balance": 0.0},
            ],
        ),
        Table(
            "transfers",
            "transfer",
            {"id": "int", "from_account": "int", "to_account": "int", "amount": "float"},
            [{"id": 1, "from_account": 1, "to_account": 2, "amount": 20.0}],
        ),
    ),
    tasks=(
        Task(
            "Transfer 75 from Ada to Cleo: record the transfer and update both balances.",
            (
                Change("insert", "transfers", {"from_account": 1, "to_account": 3, "amount": 75.0}),
                Change("update", "accounts", {"balance": 425.0}, id=1),
                Change("update", "accounts", {"balance": 75.0}, id=3),
            ),
        ),
        Task(
            "Open an account for Dara with a balance of 0.",
            (Change("insert", "accounts", {"owner": "Dara", "balance": 0.0}),),
        ),
        Task(
            "Ben's name was misspelled: the owner of account 2 is 'Benedikt'.",
            (Change("update", "accounts", {"owner": "Benedikt"}, id=2),),
        ),
    ),
)

SCENARIOS: dict[str, Scenario] = {
    spec.name: generate(spec) for spec in (E_COMMERCE, CALENDAR, BANKING)
}
