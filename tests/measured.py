"""The eight domains the data-realism measures were written against and are checked on (forms, money
bands, horizons): one list, so a domain added to the set is checked by every such test."""

MEASURED = (
    "podcast_ad_campaigns",
    "tire_shop_installations",
    "beauty_loyalty_rewards",
    "lab_test_orders",
    "self_storage_rentals",
    "grocery_delivery",
    "car_wash_memberships",
    "parcel_delivery_exceptions",
)
