"""The agent's tools, typed: τ²-bench's airline and retail tools plus ``send_message``.

A mixin of :class:`~tau2_env.server.environment.Tau2Environment`. Every tool is declared once
here with typed, bounded arguments (the JSON schema agents and the playground's forms see),
and runs the domain package's own function (:meth:`Domain.run`) on the session's database.
The class declares the tools of both domains; an episode accepts its own domain's tools
(``list_tools`` over MCP lists only those) and answers the other domain's with a clear error.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from openenv.core.mcp import tool

Id = Annotated[str, Field(min_length=1, max_length=100, description="An id from the database")]
Text = Annotated[str, Field(max_length=500)]
Airport = Annotated[str, Field(min_length=3, max_length=3, description="IATA code, e.g. JFK")]
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="YYYY-MM-DD")]
Cabin = Literal["basic_economy", "economy", "business"]
Bags = Annotated[int, Field(ge=0, le=50)]
Ids = Annotated[list[Id], Field(min_length=1, max_length=50)]
Message = Annotated[str, Field(min_length=1, max_length=4000, description="What you say")]


def _args(scope: dict[str, Any]) -> dict[str, Any]:
    """A tool method's arguments as plain JSON values (what the domain functions take)."""
    return {
        key: [v.model_dump() if isinstance(v, BaseModel) else v for v in value]
        if isinstance(value, list)
        else value
        for key, value in scope.items()
        if key != "self"
    }


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FlightRef(_Strict):
    flight_number: Id = Field(description="e.g. HAT170")
    date: Day


class Passenger(_Strict):
    first_name: Annotated[str, Field(min_length=1, max_length=100)]
    last_name: Annotated[str, Field(min_length=1, max_length=100)]
    dob: Day


class Payment(_Strict):
    payment_id: Id = Field(description="A saved payment method of the user")
    amount: Annotated[int, Field(ge=0, le=1_000_000)]


class ConversationTools:
    """What a seat says: the agent's (or, in seat=user, the customer's) line."""

    def _say(self, content: str) -> str:
        raise NotImplementedError

    @tool
    def send_message(self, content: Message) -> str:
        """Say something in the conversation and get the other side's answer.

        Args:
            content: Your message (as the agent to the customer; in seat=user, as the customer).
        """
        return self._say(content)


class AirlineTools:
    """τ²-bench's airline tools (the domain package's functions, same names and semantics)."""

    def _domain_tool(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        raise NotImplementedError

    @tool
    def book_reservation(
        self,
        user_id: Id,
        origin: Airport,
        destination: Airport,
        flight_type: Literal["one_way", "round_trip"],
        cabin: Cabin,
        flights: Annotated[list[FlightRef], Field(min_length=1, max_length=8)],
        passengers: Annotated[list[Passenger], Field(min_length=1, max_length=9)],
        payment_methods: Annotated[list[Payment], Field(min_length=1, max_length=5)],
        total_baggages: Bags,
        nonfree_baggages: Bags,
        insurance: Literal["yes", "no"],
    ) -> str:
        """[airline] Book a reservation (pays it in full with the given payment methods).

        Args:
            user_id: The user who books.
            origin: Origin airport.
            destination: Destination airport.
            flight_type: one_way or round_trip.
            cabin: The cabin for every flight.
            flights: Each flight of the trip: flight_number and date.
            passengers: Each passenger: first_name, last_name, dob.
            payment_methods: payment_id and amount each; the amounts add up to the total.
            total_baggages: Checked bags in all.
            nonfree_baggages: Checked bags that are paid for.
            insurance: Travel insurance (30 per passenger).
        """
        return self._domain_tool("book_reservation", _args(locals()))

    @tool
    def cancel_reservation(self, reservation_id: Id) -> str:
        """[airline] Cancel a whole reservation (refunds go back to the payment methods).

        Args:
            reservation_id: e.g. ZFA04Y.
        """
        return self._domain_tool("cancel_reservation", _args(locals()))

    @tool
    def get_reservation_details(self, reservation_id: Id) -> str:
        """[airline] The details of a reservation.

        Args:
            reservation_id: e.g. ZFA04Y.
        """
        return self._domain_tool("get_reservation_details", _args(locals()))

    @tool
    def get_flight_status(self, flight_number: Id, date: Day) -> str:
        """[airline] The status of a flight on a date.

        Args:
            flight_number: e.g. HAT170.
            date: The flight's date.
        """
        return self._domain_tool("get_flight_status", _args(locals()))

    @tool
    def list_all_airports(self) -> str:
        """[airline] Every airport served, with its city."""
        return self._domain_tool("list_all_airports")

    @tool
    def search_direct_flight(self, origin: Airport, destination: Airport, date: Day) -> str:
        """[airline] Direct flights between two airports on a date.

        Args:
            origin: Origin airport.
            destination: Destination airport.
            date: The date of travel.
        """
        return self._domain_tool("search_direct_flight", _args(locals()))

    @tool
    def search_onestop_flight(self, origin: Airport, destination: Airport, date: Day) -> str:
        """[airline] One-stop connections between two airports on a date.

        Args:
            origin: Origin airport.
            destination: Destination airport.
            date: The date of travel.
        """
        return self._domain_tool("search_onestop_flight", _args(locals()))

    @tool
    def send_certificate(self, user_id: Id, amount: Annotated[int, Field(ge=1, le=10_000)]) -> str:
        """[airline] Give a user a travel certificate (a compensation).

        Args:
            user_id: Who receives it.
            amount: Its value in dollars.
        """
        return self._domain_tool("send_certificate", _args(locals()))

    @tool
    def update_reservation_baggages(
        self, reservation_id: Id, total_baggages: Bags, nonfree_baggages: Bags, payment_id: Id
    ) -> str:
        """[airline] Change the checked bags of a reservation.

        Args:
            reservation_id: e.g. ZFA04Y.
            total_baggages: Checked bags in all, after the change.
            nonfree_baggages: Paid bags, after the change.
            payment_id: A saved payment method for the extra bags.
        """
        return self._domain_tool("update_reservation_baggages", _args(locals()))

    @tool
    def update_reservation_flights(
        self,
        reservation_id: Id,
        cabin: Cabin,
        flights: Annotated[list[FlightRef], Field(min_length=1, max_length=8)],
        payment_id: Id,
    ) -> str:
        """[airline] Change a reservation's flights or cabin (send the whole new flight list).

        Args:
            reservation_id: e.g. ZFA04Y.
            cabin: The cabin after the change.
            flights: Every flight of the reservation after the change.
            payment_id: A saved payment method for a price difference.
        """
        return self._domain_tool("update_reservation_flights", _args(locals()))

    @tool
    def update_reservation_passengers(
        self,
        reservation_id: Id,
        passengers: Annotated[list[Passenger], Field(min_length=1, max_length=9)],
    ) -> str:
        """[airline] Replace the passengers' details of a reservation (same number of them).

        Args:
            reservation_id: e.g. ZFA04Y.
            passengers: Each passenger: first_name, last_name, dob.
        """
        return self._domain_tool("update_reservation_passengers", _args(locals()))


class RetailTools:
    """τ²-bench's retail tools (the domain package's functions, same names and semantics)."""

    def _domain_tool(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        raise NotImplementedError

    @tool
    def find_user_id_by_email(self, email: Annotated[str, Field(max_length=200)]) -> str:
        """[retail] Find a customer's user id by email.

        Args:
            email: The customer's email address.
        """
        return self._domain_tool("find_user_id_by_email", _args(locals()))

    @tool
    def find_user_id_by_name_zip(
        self,
        first_name: Annotated[str, Field(max_length=100)],
        last_name: Annotated[str, Field(max_length=100)],
        zip: Annotated[str, Field(max_length=20)],
    ) -> str:
        """[retail] Find a customer's user id by name and zip code.

        Args:
            first_name: e.g. Yusuf.
            last_name: e.g. Rossi.
            zip: e.g. 19122.
        """
        return self._domain_tool("find_user_id_by_name_zip", _args(locals()))

    @tool
    def get_order_details(self, order_id: Id) -> str:
        """[retail] The details of an order.

        Args:
            order_id: e.g. #W2378156 (with the #).
        """
        return self._domain_tool("get_order_details", _args(locals()))

    @tool
    def get_product_details(self, product_id: Id) -> str:
        """[retail] A product and all its variants (items).

        Args:
            product_id: e.g. 1656367028.
        """
        return self._domain_tool("get_product_details", _args(locals()))

    @tool
    def get_item_details(self, item_id: Id) -> str:
        """[retail] One item (a product variant).

        Args:
            item_id: e.g. 1151293680.
        """
        return self._domain_tool("get_item_details", _args(locals()))

    @tool
    def list_all_product_types(self) -> str:
        """[retail] Every product type with its product id."""
        return self._domain_tool("list_all_product_types")

    @tool
    def cancel_pending_order(
        self, order_id: Id, reason: Literal["no longer needed", "ordered by mistake"]
    ) -> str:
        """[retail] Cancel a pending order (refund to the original payment method).

        Args:
            order_id: e.g. #W2378156.
            reason: Why the customer cancels.
        """
        return self._domain_tool("cancel_pending_order", _args(locals()))

    @tool
    def exchange_delivered_order_items(
        self, order_id: Id, item_ids: Ids, new_item_ids: Ids, payment_method_id: Id
    ) -> str:
        """[retail] Exchange items of a delivered order for other variants of the same products.

        Args:
            order_id: e.g. #W2378156.
            item_ids: The items to exchange.
            new_item_ids: Their replacements, in the same order.
            payment_method_id: Pays or receives the price difference.
        """
        return self._domain_tool("exchange_delivered_order_items", _args(locals()))

    @tool
    def modify_pending_order_address(
        self,
        order_id: Id,
        address1: Text,
        address2: Text,
        city: Text,
        state: Text,
        country: Text,
        zip: Annotated[str, Field(max_length=20)],
    ) -> str:
        """[retail] Change the shipping address of a pending order.

        Args:
            order_id: e.g. #W2378156.
            address1: Street and number.
            address2: Apartment, suite (may be empty).
            city: City.
            state: State.
            country: Country.
            zip: Zip code.
        """
        return self._domain_tool("modify_pending_order_address", _args(locals()))

    @tool
    def modify_pending_order_items(
        self, order_id: Id, item_ids: Ids, new_item_ids: Ids, payment_method_id: Id
    ) -> str:
        """[retail] Swap items of a pending order for other variants (once per order).

        Args:
            order_id: e.g. #W2378156.
            item_ids: The items to change.
            new_item_ids: Their replacements, in the same order.
            payment_method_id: Pays or receives the price difference.
        """
        return self._domain_tool("modify_pending_order_items", _args(locals()))

    @tool
    def modify_pending_order_payment(self, order_id: Id, payment_method_id: Id) -> str:
        """[retail] Pay a pending order with another of the user's payment methods.

        Args:
            order_id: e.g. #W2378156.
            payment_method_id: The new payment method.
        """
        return self._domain_tool("modify_pending_order_payment", _args(locals()))

    @tool
    def modify_user_address(
        self,
        user_id: Id,
        address1: Text,
        address2: Text,
        city: Text,
        state: Text,
        country: Text,
        zip: Annotated[str, Field(max_length=20)],
    ) -> str:
        """[retail] Change a user's default address.

        Args:
            user_id: e.g. yusuf_rossi_9620.
            address1: Street and number.
            address2: Apartment, suite (may be empty).
            city: City.
            state: State.
            country: Country.
            zip: Zip code.
        """
        return self._domain_tool("modify_user_address", _args(locals()))

    @tool
    def return_delivered_order_items(
        self, order_id: Id, item_ids: Ids, payment_method_id: Id
    ) -> str:
        """[retail] Return items of a delivered order (refund to a payment method).

        Args:
            order_id: e.g. #W2378156.
            item_ids: The items to return.
            payment_method_id: The original method or a gift card.
        """
        return self._domain_tool("return_delivered_order_items", _args(locals()))


class SharedTools:
    """Tools both domains have, with the same arguments."""

    def _domain_tool(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        raise NotImplementedError

    @tool
    def get_user_details(self, user_id: Id) -> str:
        """The details of a user: profile, payment methods, reservations or orders.

        Args:
            user_id: e.g. mia_li_3668.
        """
        return self._domain_tool("get_user_details", _args(locals()))

    @tool
    def calculate(self, expression: Annotated[str, Field(min_length=1, max_length=200)]) -> str:
        """Evaluate an arithmetic expression (digits, + - * / ( ) . and spaces).

        Args:
            expression: e.g. (1628 - 200) * 2.
        """
        return self._domain_tool("calculate", _args(locals()))

    @tool
    def transfer_to_human_agents(self, summary: Annotated[str, Field(max_length=2000)]) -> str:
        """Hand the customer over to a human agent (ends the conversation).

        Args:
            summary: The customer's issue, for the human agent.
        """
        return self._domain_tool("transfer_to_human_agents", _args(locals()))
