// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {IPool} from "@aave/core-v3/contracts/interfaces/IPool.sol";
import {DataTypes} from "@aave/core-v3/contracts/protocol/libraries/types/DataTypes.sol";

/// @title A stand-in for an Aave v3 pool: IPool's function signatures and its real events, emitted while the
/// ERC-20 amounts they name really move.
/// @notice The real Pool needs seven linked libraries, oracles and aTokens; this keeps only the bookkeeping that
/// makes each event truthful. Prices are 1:1 between assets (scaled by decimals) and liquidations pay a 5%
/// bonus; interest never accrues.
contract DemoAavePool {
    uint256 public constant FLASHLOAN_PREMIUM_BPS = 5;
    uint256 public constant LIQUIDATION_BONUS_BPS = 500;
    uint256 public constant VARIABLE_BORROW_RATE = 5e25; // 5% in ray

    mapping(address asset => mapping(address user => uint256)) public supplied;
    mapping(address asset => mapping(address user => uint256)) public debt;

    error NotRepaid(address asset, uint256 expected);

    function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode) external {
        IERC20(asset).transferFrom(msg.sender, address(this), amount);
        supplied[asset][onBehalfOf] += amount;
        emit IPool.Supply(asset, msg.sender, onBehalfOf, amount, referralCode);
    }

    function withdraw(address asset, uint256 amount, address to) external returns (uint256) {
        supplied[asset][msg.sender] -= amount;
        IERC20(asset).transfer(to, amount);
        emit IPool.Withdraw(asset, msg.sender, to, amount);
        return amount;
    }

    function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf)
        external
    {
        debt[asset][onBehalfOf] += amount;
        IERC20(asset).transfer(msg.sender, amount);
        emit IPool.Borrow(
            asset,
            msg.sender,
            onBehalfOf,
            amount,
            DataTypes.InterestRateMode(interestRateMode),
            VARIABLE_BORROW_RATE,
            referralCode
        );
    }

    function repay(address asset, uint256 amount, uint256, address onBehalfOf) external returns (uint256) {
        debt[asset][onBehalfOf] -= amount;
        IERC20(asset).transferFrom(msg.sender, address(this), amount);
        emit IPool.Repay(asset, onBehalfOf, msg.sender, amount, false);
        return amount;
    }

    function setUserUseReserveAsCollateral(address asset, bool useAsCollateral) external {
        if (useAsCollateral) emit IPool.ReserveUsedAsCollateralEnabled(asset, msg.sender);
        else emit IPool.ReserveUsedAsCollateralDisabled(asset, msg.sender);
    }

    /// @notice Lends `amount` to `receiverAddress` for one call of its `executeOperation`, which must approve
    /// the amount plus the premium for this pool to take back.
    function flashLoanSimple(
        address receiverAddress,
        address asset,
        uint256 amount,
        bytes calldata params,
        uint16 referralCode
    ) external {
        uint256 premium = amount * FLASHLOAN_PREMIUM_BPS / 10_000;
        IERC20(asset).transfer(receiverAddress, amount);
        IFlashLoanSimpleReceiver(receiverAddress).executeOperation(asset, amount, premium, msg.sender, params);
        IERC20(asset).transferFrom(receiverAddress, address(this), amount + premium);
        emit IPool.FlashLoan(
            receiverAddress, msg.sender, asset, amount, DataTypes.InterestRateMode.NONE, premium, referralCode
        );
    }

    /// @notice The caller repays `debtToCover` of the user's debt and receives the user's collateral worth it
    /// plus the bonus.
    function liquidationCall(
        address collateralAsset,
        address debtAsset,
        address user,
        uint256 debtToCover,
        bool receiveAToken
    ) external {
        uint256 collateralAmount = liquidatedCollateral(collateralAsset, debtAsset, debtToCover);
        debt[debtAsset][user] -= debtToCover;
        supplied[collateralAsset][user] -= collateralAmount;
        IERC20(debtAsset).transferFrom(msg.sender, address(this), debtToCover);
        IERC20(collateralAsset).transfer(msg.sender, collateralAmount);
        emit IPool.LiquidationCall(
            collateralAsset, debtAsset, user, debtToCover, collateralAmount, msg.sender, receiveAToken
        );
    }

    /// @notice Collateral paid for `debtToCover`: the same value at 1:1 prices, plus the liquidation bonus.
    function liquidatedCollateral(address collateralAsset, address debtAsset, uint256 debtToCover)
        public
        view
        returns (uint256)
    {
        uint256 withBonus = debtToCover * (10_000 + LIQUIDATION_BONUS_BPS) / 10_000;
        return withBonus * 10 ** IERC20Metadata(collateralAsset).decimals()
            / 10 ** IERC20Metadata(debtAsset).decimals();
    }
}

/// @title Aave's flash-loan receiver callback (without the provider getters a real receiver also has).
interface IFlashLoanSimpleReceiver {
    function executeOperation(address asset, uint256 amount, uint256 premium, address initiator, bytes calldata params)
        external
        returns (bool);
}

/// @title Borrows through `DemoAavePool.flashLoanSimple` and pays the loan back with the premium from its own
/// balance, which must hold the premium beforehand.
contract DemoFlashLoanReceiver is IFlashLoanSimpleReceiver {
    address public immutable pool;

    error NotThePool(address caller);

    constructor(address pool_) {
        pool = pool_;
    }

    function executeOperation(address asset, uint256 amount, uint256 premium, address, bytes calldata)
        external
        returns (bool)
    {
        // The approval lets the caller take the loan back, so only the pool may ask for it.
        if (msg.sender != pool) revert NotThePool(msg.sender);
        IERC20(asset).approve(msg.sender, amount + premium);
        return true;
    }
}
